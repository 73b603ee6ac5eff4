#!/usr/bin/env python3
"""Writes src/text/nfc_table.rs: the normalization facts of Unicode 15.0.0 as Terraform's
normalizer (golang.org/x/text/unicode/norm, tables15.0.0.go, which go-cty uses) derives
them, for `text::normalize` and the prefix cut's boundary facts.

Source data, taken from the local cargo registry:
- unicode-normalization 0.1.x's tables.rs (generated from the UCD by its own script): the
  canonical combining classes, the full canonical and compatibility decompositions, and the
  primary composites (the composition table, exclusions already out);
- regex-syntax 0.8's age.rs (Unicode 16.0.0): which characters Unicode 15.0.0 had.

The normalization properties of a character never change once it is assigned (Unicode's
stability policy: combining classes, decomposition mappings and composition exclusions are
immutable), so a newer UCD without the characters assigned after 15.0 is the 15.0 data.

What x/text derives from those facts (read from its maketables.go; the names are its own):
- one-way: a character with a canonical decomposition that is no primary composite;
- combines forward: the first of a primary composite's pair (unless one-way), an LV Hangul
  syllable, a leading jamo U+1100..U+1112; combines backward (NFC_QC Maybe): the second of a
  pair (unless one-way), a vowel jamo U+1161..U+1175 (which also combines forward) or a
  trailing jamo U+11A8..U+11C2; every other character of U+1100..U+11FF is NFC_QC Yes;
- the number of leading and trailing non-starters, counted on the full compatibility
  decomposition (a character combining backward counts as a non-starter), 1 and 2 for LV
  and LVT syllables' trailing count;
- a character with no canonical decomposition that starts with a non-starter only through
  a compatibility decomposition (U+FF9E) is stored as one leading and one trailing
  non-starter and nothing else.

    python3 scripts/nfc_table.py > src/text/nfc_table.rs
"""

import re

from rust_tables import CHAR, PAIR, char_value, registry_file





def assigned_in_15():
    src = open(registry_file('regex-syntax-0.8.*/src/unicode_tables/age.rs', 'regex-syntax 0.8'),
               encoding='utf-8').read()
    assert re.search(r'Unicode version: 16\.0\.0', src)
    out = set()
    pattern = r"pub const V(\d+)_(\d+): &'static \[\(char, char\)\] =\s*&\[(.*?)\];"
    versions = set()
    for m in re.finditer(pattern, src, re.S):
        version = (int(m.group(1)), int(m.group(2)))
        versions.add(version)
        if version <= (15, 0):
            for a, b in PAIR.findall(m.group(3)):
                out.update(range(char_value(a), char_value(b) + 1))
    assert (15, 0) in versions and (1, 1) in versions
    return out


def const_block(src, name):
    m = re.search(r'pub\(crate\) const %s: [^=]*= &\[(.*?)\n\];' % name, src, re.S)
    assert m, name
    return m.group(1)


def normalization_data():
    path = registry_file('unicode-normalization-0.1.*/src/tables.rs', 'unicode-normalization')
    src = open(path, encoding='utf-8').read()
    ccc = {}
    for v in re.findall(r'0x([0-9A-Fa-f]+)', const_block(src, 'CANONICAL_COMBINING_CLASS_KV')):
        v = int(v, 16)
        ccc[v >> 8] = v & 0xFF

    def decomposed(name):
        chars = [char_value(t) for t in re.findall(CHAR, const_block(src, name + '_CHARS'))]
        out = {}
        kv = const_block(src, name + '_KV')
        for cp, start, n in re.findall(r'\(0x([0-9A-Fa-f]+), \(0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\)\)', kv):
            start, n = int(start, 16), int(n, 16)
            out[int(cp, 16)] = chars[start:start + n]
        return out

    canonical = decomposed('CANONICAL_DECOMPOSED')
    compatibility = decomposed('COMPATIBILITY_DECOMPOSED')
    pairs = {}
    for key, c in re.findall(r'\(0x([0-9A-Fa-f]+), (%s)\)' % CHAR,
                             const_block(src, 'COMPOSITION_TABLE_KV')):
        key = int(key, 16)
        pairs[(key >> 16, key & 0xFFFF)] = char_value(c)
    astral = re.search(r'fn composition_table_astral.*?\n}', src, re.S).group(0)
    for a, b, c in re.findall(r"\((%s), (%s)\) => Some\((%s)\)" % (CHAR, CHAR, CHAR), astral):
        pairs[(char_value(a), char_value(b))] = char_value(c)
    assert len(pairs) > 900 and len(canonical) > 2000 and len(compatibility) > 3000
    return ccc, canonical, compatibility, pairs


HANGUL, HANGUL_END = 0xAC00, 0xAC00 + 19 * 21 * 28


def main():
    assigned = assigned_in_15()
    ccc_all, canonical_all, compat_all, pairs_all = normalization_data()
    ccc = {c: v for c, v in ccc_all.items() if c in assigned}
    canonical = {c: d for c, d in canonical_all.items() if c in assigned}
    compat = {c: d for c, d in compat_all.items() if c in assigned}
    pairs = {k: c for k, c in pairs_all.items() if c in assigned}
    for d in list(canonical.values()) + list(compat.values()):
        assert all(x in assigned for x in d)
    composites = set(pairs.values())

    def cc(c):
        return ccc.get(c, 0)

    def reorder(d):
        # Canonical order: a stable sort of each run of non-starters by class.
        out = []
        for c in d:
            n = len(out)
            out.append(c)
            if cc(c) > 0:
                while n > 0 and cc(out[n - 1]) > cc(c):
                    out[n] = out[n - 1]
                    n -= 1
                out[n] = c
        return out

    def one_way(c):
        return c in canonical and c not in composites

    forward, backward = set(), set()
    for (a, b), c in pairs.items():
        assert len(canonical[c]) >= 2
        if not one_way(a):
            forward.add(a)
        if not one_way(b):
            backward.add(b)
    for c in range(0x1100, 0x1113):
        forward.add(c)
    for c in range(0x1161, 0x1176):
        forward.add(c)
        backward.add(c)
    for c in range(0x11A8, 0x11C3):
        backward.add(c)

    def full_compat(c, depth=0):
        assert depth < 20
        base = compat.get(c) or canonical.get(c)
        if not base:
            return [c]
        out = []
        for x in base:
            out.extend([x] if x == c else full_compat(x, depth + 1))
        return out

    def non_starter(c):
        return cc(c) != 0 or c in backward

    def counts(c):
        runes = full_compat(c)
        lead = 0
        for r in runes:
            if not non_starter(r):
                break
            lead += 1
        trail = 0
        for r in reversed(runes):
            if not non_starter(r):
                break
            trail += 1
        assert trail <= 3 and (lead == 0 or lead == trail), hex(c)
        return lead, trail

    # flags: 0x20 combines forward, 0x10 NFC_QC not Yes, 0x08 combines backward (NFC_QC
    # Maybe), 0x04 has a canonical decomposition, 0x03 trailing non-starters.
    entries = []
    decomps = []
    offsets = {}
    for c in sorted(set(ccc) | set(canonical) | set(compat) | forward | backward):
        if HANGUL <= c < HANGUL_END:
            continue
        lead, trail = counts(c)
        flags = trail
        if c in forward:
            flags |= 0x20
        if c in canonical:
            d = reorder(canonical[c])
            assert c not in backward
            flags |= 0x04
            if one_way(c):
                flags |= 0x10
            key = tuple(d)
            if key not in offsets:
                offsets[key] = len(decomps)
                decomps.extend(d)
            # The class of the first character of the decomposition, as x/text keeps it.
            entries.append((c, cc(d[0]), flags, lead, offsets[key], len(d)))
            continue
        if c in backward:
            flags |= 0x18
        if lead > 0 and cc(c) == 0 and c not in backward:
            # x/text's "starter with a leading non-starter": one of each, nothing else.
            entries.append((c, 0, 0x01, 1, 0, 0))
            continue
        lead = trail if (cc(c) > 0 or c in backward) else 0
        if flags == 0 and cc(c) == 0:
            continue
        entries.append((c, cc(c), flags, lead, 0, 0))

    recomp = {}
    for (a, b), c in pairs.items():
        key = ((a & 0xFFFF) << 16) | (b & 0xFFFF)
        assert key not in recomp, 'two pairs share the truncated key %08X' % key
        recomp[key] = (a, b, c)

    print('//! Generated by `scripts/nfc_table.py` (see there for the source data); do not edit.')
    print('//!')
    print('//! Unicode 15.0.0 normalization facts as golang.org/x/text/unicode/norm derives them.')
    print()
    print('/// (character, combining class, flags, leading non-starters, decomposition start, length),')
    print('/// sorted; every other character (but the Hangul syllables) is inert.')
    print('pub(super) const PROPS: &[(u32, u8, u8, u8, u16, u8)] = &[')
    for e in entries:
        print('    (0x%04X, %d, 0x%02X, %d, %d, %d),' % e)
    print('];')
    print()
    print('/// The canonical decompositions, in canonical order.')
    print('pub(super) const DECOMPOSITIONS: &[char] = &[')
    for i in range(0, len(decomps), 8):
        print('    ' + ' '.join("'\\u{%04X}'," % c for c in decomps[i:i + 8]))
    print('];')
    print()
    print('/// The primary composites: (truncated key, first, second, composite), sorted by the key')
    print("/// (each character's low 16 bits, the first's above the second's, as x/text keys them).")
    print('pub(super) const COMPOSITIONS: &[(u32, u32, u32, u32)] = &[')
    for key in sorted(recomp):
        a, b, c = recomp[key]
        print('    (0x%08X, 0x%04X, 0x%04X, 0x%04X),' % (key, a, b, c))
    print('];')


if __name__ == '__main__':
    main()
