#!/usr/bin/env python3
"""Writes msgpack-encode-text.jsonl, json-encode-text.jsonl and msgpack-to-json-text.jsonl:
strings whose normalized form, and long prefixes whose 255-byte cut, Terraform Core
(go-cty over golang.org/x/text/unicode/norm, Unicode 15.0.0) writes otherwise than
Unicode's NFC would, or than tfvalue did before it followed those rules.

The expected outcomes come from the rules as stated below, computed here with Python's
own `unicodedata` (no tfvalue code runs):

1. x/text finds a composition by the low 16 bits of both characters: a CJK ideograph X
   (no decomposition, class 0) whose low 16 bits are those of the first character of a
   primary composite's pair (a, b) -> c composes with b into c.
2. A starter S, a character M of class 0 that combines backward (the second of a pair) or
   that only a compatibility decomposition starts with a non-starter (U+FF9E, U+FF9F), a
   mark N of class below C's that combines with nothing, then a mark C with (S, C) -> SC:
   x/text gives SC M N (Unicode: unchanged, C is blocked by M).
3. More than 30 non-starters in a row: U+034F goes in before the 31st.
4. The prefix cut (go-cty's SafeKnownPrefix of the first 255 bytes): x/text's
   LastBoundary, then go-textseg's clusters.
   a. A Hangul jamo that composes with nothing (U+1160, U+1176..U+11A7, U+11C3..U+11FF)
      is inert, so after `a`s it ends the 255 bytes as a cluster of its own (grapheme
      classes V and T do not join an `a`), which is dropped.
   b. A character that only a compatibility decomposition starts with a non-starter is a
      non-starter to LastBoundary: after a ZWJ (a starter there, though it joins the
      cluster before it), the cut falls before the ZWJ.
   c. A mark assigned after Unicode 15.0 is unassigned to Terraform: inert, and a cluster
      of its own (class Other), dropped after `a`s.

    python3 tests/vectors/gen_text.py   # writes the three files next to this script
"""

import json
import os
import re
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
assert unicodedata.unidata_version >= '14.0.0'


def pairs():
    """(a, b) -> c for the BMP primary composites."""
    out = {}
    for c in range(0x10000):
        d = unicodedata.decomposition(chr(c))
        if not d or d.startswith('<'):
            continue
        parts = [int(x, 16) for x in d.split()]
        if len(parts) == 2 and unicodedata.normalize('NFC', chr(parts[0]) + chr(parts[1])) == chr(c):
            out[(parts[0], parts[1])] = c
    return out


PAIRS = pairs()
SECONDS = {b for (_, b) in PAIRS}
FIRSTS = {a for (a, _) in PAIRS}


def ccc(c):
    return unicodedata.combining(chr(c))


def ideograph_with_low_bits(low):
    for base, end in ((0x20000, 0x2A6DF), (0x30000, 0x3134A)):
        x = base | low
        if x <= end:
            return x
    return None


def msgpack_str(s):
    b = s.encode('utf-8')
    n = len(b)
    if n < 32:
        head = bytes([0xA0 | n])
    elif n < 256:
        head = bytes([0xD9, n])
    elif n < 65536:
        head = bytes([0xDA]) + n.to_bytes(2, 'big')
    else:
        head = bytes([0xDB]) + n.to_bytes(4, 'big')
    return head + b


def msgpack_prefix_unknown(prefix):
    payload = bytes([0x81, 0x02]) + msgpack_str(prefix)
    n = len(payload)
    assert n > 16
    if n < 256:
        return bytes([0xC7, n, 0x0C]) + payload
    return bytes([0xC8]) + n.to_bytes(2, 'big') + bytes([0x0C]) + payload


def json_text(s):
    # go's encoding/json: non-ASCII as it is; none of these strings needs escapes.
    assert all(ch not in s for ch in '"\\<>&\u2028\u2029') and all(ord(ch) >= 0x20 for ch in s)
    return '"' + s + '"'


def hexs(cps):
    return '-'.join('%04X' % c for c in cps)


def string_cases():
    """(name, input, expected, tags)."""
    cases = []
    # 1. Compositions by the low 16 bits.
    for (a, b), c in sorted(PAIRS.items()):
        x = ideograph_with_low_bits(a)
        if x is None:
            continue
        if (a * 7 + b) % 5:  # a fifth of them, spread over the table
            continue
        s = 'k' + chr(x) + chr(b) + 'z'
        cases.append(('string/x-text-low-16-bits-%s' % hexs([x, b]), s, 'k' + chr(c) + 'z',
                      ['low-16-bits']))
    # 2. Marks that pass a starter of class 0 in the same segment.
    backward_starters = sorted(m for m in SECONDS if ccc(m) == 0 and m < 0x10000
                               and not 0x1100 <= m <= 0x11FF)
    backward_starters += [0xFF9E, 0xFF9F]
    blockers = [n for n in (0x05B0, 0x05B1, 0x05B4, 0x05B8, 0x0F71, 0x0E38, 0x0591, 0x0316)
                if n not in SECONDS]
    for s_char, c in sorted(PAIRS):
        if not (0x41 <= s_char <= 0x7A and ccc(c) == 230):
            continue
        for m in backward_starters:
            if (s_char, m) in PAIRS:
                continue
            for n in blockers:
                if not 0 < ccc(n) < ccc(c):
                    continue
                if (s_char + m + n + c) % 97:
                    continue
                text = chr(s_char) + chr(m) + chr(n) + chr(c)
                want = chr(PAIRS[(s_char, c)]) + chr(m) + chr(n)
                cases.append(('string/x-text-passes-a-starter-%s' % hexs([s_char, m, n, c]), text,
                              want, ['blocking']))
    # 3. Stream-safe text.
    for base, mark, n in (('a', 0x0301, 31), ('o', 0x0308, 40), ('e', 0x0323, 61)):
        text = base + chr(mark) * n
        # The first mark composes with the base (all of them have a composite with it);
        # the joiner goes in before the 31st non-starter, and again 30 after.
        composed = unicodedata.normalize('NFC', base + chr(mark))
        assert len(composed) == 1, (base, mark)
        rest = [chr(mark)] * (n - 1)
        out = composed
        count = 1
        for ch in rest:
            if count == 30:
                out += '\u034F'
                count = 0
            out += ch
            count += 1
        cases.append(('string/x-text-stream-safe-%s-%d' % (hexs([ord(base), mark]), n), text, out,
                      ['stream-safe']))
    return cases


def prefix_cases():
    """(name, long prefix, the prefix as written, tags)."""
    cases = []
    tail = 'z' * 9
    inert_jamo = [0x1160] + list(range(0x1176, 0x11A8)) + list(range(0x11C3, 0x1200))
    for j in inert_jamo:
        assert ccc(j) == 0 and j not in SECONDS and j not in FIRSTS
        s = 'a' * 252 + chr(j) + tail
        cases.append(('prefix/inert-jamo-%04X' % j, s, 'a' * 252, ['jamo']))
    # Characters whose compatibility decomposition starts with a non-starter (a mark, or
    # a jamo that combines backward), with no canonical decomposition.
    vt = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    lead = []
    for c in range(0x800, 0x10000):
        d = unicodedata.decomposition(chr(c))
        if not d.startswith('<'):
            continue
        first = unicodedata.normalize('NFKD', chr(c))[0]
        if ccc(ord(first)) != 0 or ord(first) in vt or ord(first) in SECONDS:
            lead.append(c)
    assert 0xFF9E in lead and 0x314F in lead
    for c in lead:
        s = 'a' * 249 + '\u200D' + chr(c) + tail
        cases.append(('prefix/compatibility-non-starter-%04X' % c, s, 'a' * 249,
                      ['compatibility']))
    # Marks new since Unicode 15.0 (from regex-syntax's Age table and the newer combining
    # classes unicode-normalization ships: both in the cargo registry).
    for c in new_marks():
        n = len(chr(c).encode('utf-8'))
        s = 'a' * (255 - n) + chr(c) + tail
        cases.append(('prefix/unassigned-in-15-%04X' % c, s, 'a' * (255 - n), ['unicode-version']))
    return cases


def new_marks():
    import glob
    home = os.path.expanduser('~')
    age = sorted(glob.glob(home + '/.cargo/registry/src/*/regex-syntax-0.8.*/src/unicode_tables/age.rs'))
    tables = sorted(glob.glob(home + '/.cargo/registry/src/*/unicode-normalization-0.1.*/src/tables.rs'))
    if not age or not tables:
        raise SystemExit('regex-syntax 0.8 and unicode-normalization must be in the cargo registry')
    src = open(age[-1], encoding='utf-8').read()
    new = set()
    for name in ('V15_1', 'V16_0'):
        m = re.search(r"pub const %s: &'static \[\(char, char\)\] =\s*&\[(.*?)\];" % name, src, re.S)
        for a, b in re.findall(r"\('\\u\{([0-9a-fA-F]+)\}', '\\u\{([0-9a-fA-F]+)\}'\)", m.group(1)):
            new.update(range(int(a, 16), int(b, 16) + 1))
    src = open(tables[-1], encoding='utf-8').read()
    block = re.search(r'CANONICAL_COMBINING_CLASS_KV: &\[u32\] = &\[(.*?)\];', src, re.S).group(1)
    marks = {int(v, 16) >> 8 for v in re.findall(r'0x([0-9A-Fa-f]+)', block)}
    out = sorted(c for c in new & marks)
    assert 0x0897 in out, 'U+0897 ARABIC PEPET is a mark new in 16.0'
    return out


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == '--sample':
        return sample(int(sys.argv[2]))
    strings = string_cases()
    prefixes = prefix_cases()
    for name, s, want, _ in strings:
        # Each is a case where Terraform's NFC is not Unicode's.
        assert unicodedata.normalize('NFC', s) != want, name
    names = [c[0] for c in strings + prefixes]
    assert len(names) == len(set(names))
    with open(os.path.join(HERE, 'msgpack-encode-text.jsonl'), 'w', encoding='utf-8') as f:
        for name, s, want, tags in strings:
            case = {'name': name, 'tags': ['string', 'unicode-normalization'] + tags,
                    'type': 'string', 'value': {'string': s},
                    'expect': {'msgpack': msgpack_str(want).hex(), 'compare': 'bytes'}}
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + '\n')
        for name, s, want, tags in strings[:40]:
            case = {'name': 'map-key/' + name.split('/', 1)[1], 'tags': ['map', 'unicode-normalization'] + tags,
                    'type': ['map', 'bool'], 'value': {'map': {s: {'bool': True}}},
                    'expect': {'msgpack': (bytes([0x81]) + msgpack_str(want) + b'\xc3').hex(),
                               'compare': 'bytes'}}
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + '\n')
        for name, s, want, tags in prefixes:
            case = {'name': name, 'tags': ['string', 'unknown', 'refined', 'prefix'] + tags,
                    'type': 'string', 'value': {'unknown': {'prefix': s}},
                    'expect': {'msgpack': msgpack_prefix_unknown(want).hex(), 'compare': 'bytes'}}
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + '\n')
    with open(os.path.join(HERE, 'json-encode-text.jsonl'), 'w', encoding='utf-8') as f:
        for name, s, want, tags in strings:
            case = {'name': name, 'tags': ['string', 'unicode-normalization', 'json'] + tags,
                    'type': 'string', 'value': {'string': s},
                    'expect': {'json_text': json_text(want), 'compare': 'json-semantic'}}
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + '\n')
    with open(os.path.join(HERE, 'msgpack-to-json-text.jsonl'), 'w', encoding='utf-8') as f:
        for name, s, want, tags in strings:
            case = {'name': name, 'tags': ['string', 'unicode-normalization'] + tags,
                    'type': 'string', 'msgpack': msgpack_str(s).hex(),
                    'expect': {'json_text': json_text(want), 'compare': 'bytes'}}
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + '\n')
    print('%d strings, %d prefixes' % (len(strings), len(prefixes)))


def sample(n):
    """msgpack-encode cases on stdout: n random strings of each shape of rules 1 and 2, and
    n prefixes of each shape of rule 4 (a, b), with random fillers and tails."""
    import random
    import sys
    rng = random.Random(34)
    pairs = sorted((a, b, c) for (a, b), c in PAIRS.items() if ideograph_with_low_bits(a))
    letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
    out = []
    for i in range(n):
        a, b, c = rng.choice(pairs)
        x = ideograph_with_low_bits(a)
        pre, post = rng.choice(letters) * rng.randrange(0, 4), rng.choice(letters) * rng.randrange(0, 4)
        out.append(('sample/low-16-%d' % i, pre + chr(x) + chr(b) + post, pre + chr(c) + post))
    starters = sorted(m for m in SECONDS if ccc(m) == 0 and m < 0x10000 and not 0x1100 <= m <= 0x11FF)
    starters += [0xFF9E, 0xFF9F]
    latin = sorted((s, c) for (s, c) in PAIRS if 0x41 <= s <= 0x7A and ccc(c) == 230)
    blockers = [m for m in (0x05B0, 0x05B1, 0x05B4, 0x05B8, 0x0F71, 0x0E38, 0x0591, 0x0316) if m not in SECONDS]
    i = 0
    while i < n:
        s_char, c = rng.choice(latin)
        m, b = rng.choice(starters), rng.choice(blockers)
        if (s_char, m) in PAIRS or not 0 < ccc(b) < ccc(c):
            continue
        out.append(('sample/passes-a-starter-%d' % i, chr(s_char) + chr(m) + chr(b) + chr(c),
                    chr(PAIRS[(s_char, c)]) + chr(m) + chr(b)))
        i += 1
    for name, s, want in out:
        case = {'name': name, 'type': 'string', 'value': {'string': s},
                'expect': {'msgpack': msgpack_str(want).hex(), 'compare': 'bytes'}}
        sys.stdout.write(json.dumps(case, ensure_ascii=False) + '\n')
    inert_jamo = [0x1160] + list(range(0x1176, 0x11A8)) + list(range(0x11C3, 0x1200))
    lead = [c for c in range(0x800, 0x10000) if unicodedata.decomposition(chr(c)).startswith('<')
            and (ccc(ord(unicodedata.normalize('NFKD', chr(c))[0])) != 0
                 or ord(unicodedata.normalize('NFKD', chr(c))[0]) in SECONDS
                 or 0x1161 <= ord(unicodedata.normalize('NFKD', chr(c))[0]) < 0x1176
                 or 0x11A8 <= ord(unicodedata.normalize('NFKD', chr(c))[0]) < 0x11C3)]
    for i in range(2 * n):
        f = rng.choice(letters)
        tail = ''.join(rng.choice(letters) for _ in range(rng.randrange(2, 12)))
        if i % 2 == 0:
            j = rng.choice(inert_jamo)
            s, want = f * 252 + chr(j) + tail, f * 252
        else:
            c = rng.choice(lead)
            s, want = f * 249 + '\u200D' + chr(c) + tail, f * 249
        case = {'name': 'sample/prefix-%d' % i, 'type': 'string', 'value': {'unknown': {'prefix': s}},
                'expect': {'msgpack': msgpack_prefix_unknown(want).hex(), 'compare': 'bytes'}}
        sys.stdout.write(json.dumps(case, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
