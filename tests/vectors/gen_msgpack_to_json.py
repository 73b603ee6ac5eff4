#!/usr/bin/env python3
"""Writes msgpack-to-json.jsonl: float64s (and a few other numbers) off the wire, and the
JSON text go-cty writes for them.

The expected texts are computed here, independently of tfvalue, in two ways that must
agree (the script stops if they do not):

* `text_by_digit_walk`: the steps of math/big's `roundShortest` (ftoa.go) and
  `decimal.round` (decimal.go) as Go takes them, on exact decimal expansions: the value
  held at 53 bits (subnormals normalized), its lower and upper bounds half an ulp away,
  a walk along the digits until the value is told apart from both bounds, then a
  truncation, a round-up or a round-half-to-even;
* `text_by_interval`: the rule stated on rationals: of the decimals in
  [v - h, v + h] (h half an ulp of the 53-bit mantissa, ends included iff the mantissa
  is even), those with the fewest significant digits, the nearest to v, and of two
  equally near the one with the even last digit.

Both print plain notation (`Text('f', -1)`): no exponent, `-0` for negative zero.

    python3 tests/vectors/gen_msgpack_to_json.py > tests/vectors/msgpack-to-json.jsonl
    python3 tests/vectors/gen_msgpack_to_json.py --sample floats 20000 > floats.jsonl
    python3 tests/vectors/gen_msgpack_to_json.py --sample subnormals 10000 > subnormals.jsonl
"""

import json
import random
import struct
import sys
from fractions import Fraction


def bits_of(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def decompose(bits):
    """(negative, M, e): the float64 is (-1)^negative * M * 2^e, M in [2^52, 2^53), or M == 0."""
    neg = bits >> 63
    biased = (bits >> 52) & 0x7FF
    fraction = bits & ((1 << 52) - 1)
    assert biased != 0x7FF, 'not finite'
    if biased == 0:
        if fraction == 0:
            return neg, 0, 0
        m, e = fraction, -1074
    else:
        m, e = fraction | (1 << 52), biased - 1075
    while m < (1 << 52):
        m, e = m << 1, e - 1
    return neg, m, e


def plain(digits, exp10, neg):
    """The plain text of int(digits) * 10^exp10."""
    s = digits.lstrip('0')
    while s.endswith('0'):
        s, exp10 = s[:-1], exp10 + 1
    if not s:
        body = '0'
    elif exp10 >= 0:
        body = s + '0' * exp10
    elif len(s) > -exp10:
        body = s[:len(s) + exp10] + '.' + s[len(s) + exp10:]
    else:
        body = '0.' + '0' * (-exp10 - len(s)) + s
    return ('-' if neg else '') + body


# ---- 1. math/big's digit walk ----------------------------------------------------------

def decimal_of(m, shift):
    """m * 2^shift as (digits without trailing zeros, exp): value = 0.digits * 10^exp."""
    v = Fraction(m) * Fraction(2) ** shift
    num, den, k = v.numerator, v.denominator, 0
    while den > 1:  # den is a power of two: multiply by 5/5
        den, num, k = den // 2, num * 5, k + 1
    s = str(num)
    return [s.rstrip('0'), len(s) - k]


def digit_at(d, i):
    return d[0][i] if 0 <= i < len(d[0]) else '0'


def round_digits(d, n, how):
    s, exp = d
    if n >= len(s):
        return d
    if how == 'nearest':
        if s[n] == '5' and n + 1 == len(s):  # exactly halfway: to even
            how = 'up' if n > 0 and int(s[n - 1]) % 2 == 1 else 'down'
        else:
            how = 'up' if s[n] >= '5' else 'down'
    if how == 'down':
        return [s[:n].rstrip('0'), exp]
    while n > 0 and s[n - 1] == '9':
        n -= 1
    if n == 0:
        return ['1', exp + 1]
    return [s[:n - 1] + chr(ord(s[n - 1]) + 1), exp]


def text_by_digit_walk(bits):
    neg, m, e = decompose(bits)
    if m == 0:
        return '-0' if neg else '0'
    d = decimal_of(m, e)
    mant, exp = 2 * m, e - 1  # lsb is half an ulp
    lower, upper = decimal_of(mant - 1, exp), decimal_of(mant + 1, exp)
    inclusive = mant & 2 == 0
    for i, c in enumerate(d[0]):
        lo, up = digit_at(lower, i), digit_at(upper, i)
        ok_down = lo != c or (inclusive and i + 1 == len(lower[0]))
        ok_up = c != up and (inclusive or chr(ord(c) + 1) < up or i + 1 < len(upper[0]))
        if ok_down and ok_up:
            d = round_digits(d, i + 1, 'nearest')
            break
        if ok_down:
            d = round_digits(d, i + 1, 'down')
            break
        if ok_up:
            d = round_digits(d, i + 1, 'up')
            break
    return plain(d[0], d[1] - len(d[0]), neg)


# ---- 2. the rule, on rationals ---------------------------------------------------------

def text_by_interval(bits):
    neg, m, e = decompose(bits)
    if m == 0:
        return '-0' if neg else '0'
    v = Fraction(m) * Fraction(2) ** e
    h = Fraction(2) ** e / 2
    inclusive = m % 2 == 0
    lo, hi = v - h, v + h
    p = 0  # 10^(p-1) <= v < 10^p
    while Fraction(10) ** p <= v:
        p += 1
    while Fraction(10) ** (p - 1) > v:
        p -= 1
    for n in range(1, 40):
        unit = Fraction(10) ** (p - n)
        first, last = -((-lo / unit).__floor__()), (hi / unit).__floor__()
        found = [c for c in range(first, last + 1)
                 if lo < c * unit < hi or (inclusive and c * unit in (lo, hi))]
        if found:
            best = min(abs(c * unit - v) for c in found)
            near = [c for c in found if abs(c * unit - v) == best]
            c = near[0] if len(near) == 1 else next(c for c in near if c % 2 == 0)
            return plain(str(c), p - n, neg)
    raise AssertionError('no candidate')


def float_text(bits):
    a, b = text_by_digit_walk(bits), text_by_interval(bits)
    assert a == b, (hex(bits), a, b)
    return a


# ---- cases -------------------------------------------------------------------------------

def case(name, tags, ty, msgpack, expect):
    return {'name': name, 'tags': tags, 'type': ty, 'msgpack': msgpack, 'expect': expect}


def float_case(name, bits, tags=()):
    return case(name, ['number', 'float64', *tags], 'number', 'cb%016x' % bits,
                {'json_text': float_text(bits), 'compare': 'bytes'})


def is_tie(bits):
    """Whether the text is a tie between two candidates (the exact value ends halfway)."""
    neg, m, e = decompose(bits)
    text = float_text(bits).lstrip('-')
    if '.' not in text:
        return False
    digits = len(text.split('.')[1])
    v = Fraction(m) * Fraction(2) ** e
    scaled = v * 10 ** digits
    return scaled.denominator == 2


def fixed_cases():
    out = []
    f = lambda name, x, *tags: out.append(float_case(name, bits_of(x), tags))
    b = lambda name, bits, *tags: out.append(float_case(name, bits, tags))
    # The tie, and ties found among binary fractions, both directions and signs.
    b('float/tie-70368744177664.125', 0x42D0000000000008, 'tie')
    rng = random.Random(2121)
    downs = ups = 0
    while downs < 4 or ups < 4:
        x = rng.randrange(1 << 45, 1 << 53) / 2 ** rng.randrange(1, 9)
        bits = bits_of(x)
        if not is_tie(bits):
            continue
        text = float_text(bits)
        went_up = Fraction(text) > Fraction(x)
        if went_up and ups < 4:
            ups += 1
            b('float/tie-up-%s' % text, bits, 'tie')
            b('float/tie-up-negative-%s' % text, bits | (1 << 63), 'tie')
        elif not went_up and downs < 4:
            downs += 1
            b('float/tie-down-%s' % text, bits, 'tie')
    # Subnormals: a 53-bit mantissa's digits, not the IEEE shortest.
    b('float/subnormal-min', 0x0000000000000001, 'subnormal')
    b('float/subnormal-min-negative', 0x8000000000000001, 'subnormal')
    b('float/subnormal-2', 0x0000000000000002, 'subnormal')
    b('float/subnormal-3', 0x0000000000000003, 'subnormal')
    b('float/subnormal-max', 0x000FFFFFFFFFFFFF, 'subnormal')
    b('float/subnormal-half-range', 0x0008000000000000, 'subnormal')
    for bits in (0x0000000000001234, 0x00000ABCDEF01234, 0x0003243F6A8885A3):
        b('float/subnormal-%x' % bits, bits, 'subnormal')
    b('float/min-normal', 0x0010000000000000)
    b('float/largest-finite', 0x7FEFFFFFFFFFFFFF)
    b('float/largest-finite-negative', 0xFFEFFFFFFFFFFFFF)
    b('float/negative-zero', 0x8000000000000000, 'zero')
    b('float/zero', 0x0000000000000000, 'zero')
    # Whole numbers: below 2^53 written whole; beyond, the shortest text and zeros.
    f('float/2^53', 2.0 ** 53, 'integer')
    f('float/2^53+2', 2.0 ** 53 + 2, 'integer')
    f('float/2^62+2^10', 2.0 ** 62 + 2 ** 10, 'integer')
    f('float/2^63', 2.0 ** 63, 'integer')
    f('float/-2^63', -(2.0 ** 63), 'integer')
    f('float/2^64', 2.0 ** 64, 'integer')
    f('float/1e23', 1e23, 'integer')
    f('float/1e300', 1e300, 'integer')
    f('float/2^653', 2.0 ** 653, 'integer', 'power-of-two')
    f('float/9007199254740993e3', 9007199254740993e3, 'integer')
    f('float/123456789012345680000', 123456789012345680000.0, 'integer')
    # Exact decimals and everyday fractions.
    for x in (0.5, 0.25, 0.125, 1.5, -2.75, 3.0625, 1e-7, 0.1, 0.2, 0.3, 1.1, 2.2250738585072014e-308 * 3,
              123.456, -0.001, 1.0 / 3, 2.0 / 3, 5e-5, 6.02214076e23):
        f('float/%r' % x, x)
    # Powers of two, where the lower half-ulp is taken as wide as the upper one.
    for k in (-1074, -1022, -1, 0, 1, 52, 1023):
        f('float/2^%d' % k, 2.0 ** k, 'power-of-two')
    # float32 on the wire: read as the float64 it widens to.
    out.append(case('float32/0.1', ['number', 'float32'], 'number', 'ca3dcccccd',
                    {'json_text': float_text(bits_of(struct.unpack('>f', bytes.fromhex('3dcccccd'))[0])),
                     'compare': 'bytes'}))
    # Numbers that are not float64s keep their digits.
    out.append(case('text/0.1', ['number', 'text'], 'number', 'a3302e31',
                    {'json_text': '0.1', 'compare': 'bytes'}))
    long = '0.1000000000000000055511151231257827021181583404541015625'
    out.append(case('text/exact-expansion-of-0.1', ['number', 'text'], 'number',
                    'd9%02x' % len(long) + long.encode().hex(),
                    {'json_text': long, 'compare': 'bytes'}))
    out.append(case('text/70368744177664.125', ['number', 'text', 'tie'], 'number',
                    'b2' + b'70368744177664.125'.hex(),
                    {'json_text': '70368744177664.125', 'compare': 'bytes'}))
    out.append(case('integer/uint64-max', ['number', 'integer'], 'number', 'cfffffffffffffffff',
                    {'json_text': '18446744073709551615', 'compare': 'bytes'}))
    out.append(case('integer/int64-min', ['number', 'integer'], 'number', 'd38000000000000000',
                    {'json_text': '-9223372036854775808', 'compare': 'bytes'}))
    out.append(case('integer/fixint', ['number', 'integer'], 'number', '2a',
                    {'json_text': '42', 'compare': 'bytes'}))
    # What JSON cannot hold, or the wire must not carry.
    out.append(case('float/infinity', ['number', 'float64', 'error'], 'number', 'cb7ff0000000000000',
                    {'error': True}))
    out.append(case('float/nan', ['number', 'float64', 'error'], 'number', 'cb7ff8000000000000',
                    {'error': True}))
    out.append(case('unknown/number', ['number', 'unknown', 'error'], 'number', 'd40000',
                    {'error': True}))
    # Float64s inside collections, objects and dynamic values.
    t1, t2, t3 = bits_of(0.1), 0x42D0000000000008, 0x0000000000000001
    obj = ['object', {'a': 'number', 'b': ['list', 'number'], 'c': ['map', 'number']}]
    msg = ('83' + 'a161' + 'cb%016x' % t1 + 'a162' + '92' + 'cb%016x' % t2 + 'cb%016x' % t3
           + 'a163' + '81' + 'a178' + 'cb%016x' % bits_of(-0.0))
    text = '{"a":%s,"b":[%s,%s],"c":{"x":%s}}' % (
        float_text(t1), float_text(t2), float_text(t3), float_text(bits_of(-0.0)))
    out.append(case('object/floats', ['number', 'float64', 'object'], obj, msg,
                    {'json_text': text, 'compare': 'bytes'}))
    # Sets are written in ascending order of value.
    st = ['set', 'number']
    msg = '93' + 'cb%016x' % t2 + 'cb%016x' % t1 + 'cb%016x' % bits_of(-1.5)
    text = '[%s,%s,%s]' % (float_text(bits_of(-1.5)), float_text(t1), float_text(t2))
    out.append(case('set/floats', ['number', 'float64', 'set'], st, msg,
                    {'json_text': text, 'compare': 'bytes'}))
    ty_json = b'"number"'
    msg = '92' + 'c4%02x' % len(ty_json) + ty_json.hex() + 'cb%016x' % t2
    c = case('dynamic/float', ['number', 'float64', 'dynamic'], 'dynamic', msg,
             {'json_text': '{"type":"number","value":%s}' % float_text(t2), 'compare': 'bytes'})
    c['policy'] = ('a dynamic value is written type first, so that a reader that cannot look '
                   'ahead decodes the value as it reads it (either order is read)')
    c['cty'] = {'json_text': '{"value":%s,"type":"number"}' % float_text(t2)}
    out.append(c)
    return out


def sample(kind, count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        if kind == 'floats' and len(out) < count // 2:
            bits = rng.getrandbits(64)  # any finite bit pattern
            if (bits >> 52) & 0x7FF == 0x7FF:
                continue
            tags = ('random-bits',)
        elif kind == 'floats':
            x = rng.randrange(1 << 45, 1 << 53) / 2 ** rng.randrange(1, 11)  # tie-prone
            bits = bits_of(x) | (rng.getrandbits(1) << 63)
            tags = ('binary-fraction',)
        else:
            bits = rng.getrandbits(52) | (rng.getrandbits(1) << 63)
            if bits & ((1 << 52) - 1) == 0:
                continue
            tags = ('subnormal',)
        out.append(float_case('sample/%s-%d' % (kind, len(out)), bits, tags))
    return out


def main():
    if sys.argv[1:2] == ['--sample']:
        kind, count = sys.argv[2], int(sys.argv[3])
        seed = int(sys.argv[4]) if len(sys.argv) > 4 else 21
        cases = sample(kind, count, seed)
    else:
        cases = fixed_cases()
        names = [c['name'] for c in cases]
        assert len(names) == len(set(names)), 'duplicate names'
    for c in cases:
        print(json.dumps(c, sort_keys=True))


if __name__ == '__main__':
    main()
