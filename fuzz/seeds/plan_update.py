"""Seeds for the plan_update fuzz target: 300 (prior state, proposal, configuration)
triples of the target's schema, written as the target reads them (two-byte lengths).

    python3 fuzz/seeds/plan_update.py SEED fuzz/corpus/plan_update
"""
import random, struct, os, sys
def enc(v):
    if v is None: return b'\xc0'
    if v == 'UNK': return b'\xd4\x00\x00'
    if v is True: return b'\xc3'
    if v is False: return b'\xc2'
    if isinstance(v, int):
        if 0 <= v < 128: return bytes([v])
        return b'\xd3' + struct.pack('>q', v)
    if isinstance(v, float): return b'\xcb' + struct.pack('>d', v)
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xa0|len(b)]) if len(b) < 32 else b'\xd9'+bytes([len(b)])) + b
    if isinstance(v, list): return (bytes([0x90|len(v)]) if len(v) < 16 else b'\xdc'+struct.pack('>H', len(v))) + b''.join(enc(x) for x in v)
    if isinstance(v, dict):
        return (bytes([0x80|len(v)]) if len(v) < 16 else b'\xde'+struct.pack('>H', len(v))) + b''.join(enc(k)+enc(v[k]) for k in sorted(v))
R = random.Random(int(sys.argv[1]))
def s(): return R.choice([None, 'a', 'b', 'i-1', 'UNK'])
def sk(): return R.choice([None, 'a', 'b', 'i-1'])
def n(): return R.choice([None, 1, 2, 1.5, 'UNK'])
def inner(known):
    f = sk if known else s
    return {'name': f(), 'id': f(), 'n': R.choice([None,1,2]), 'kind': f()}
def nested(known):
    f = sk if known else s
    return {'v': f(), 'id': f()}
def root(known):
    f = sk if known else s
    d = inner(known)
    d.update({'zone': f(), 'size': R.choice([None,1,2]), 'any': None,
      'tags': R.choice([None, {}, {'a':'1'}, {'a':'2'}]), 'mode': R.choice([None, 'm', 'x']),
      'ports': R.choice([None, [], [1], [1,2]]),
      'one': R.choice([None, nested(known)]),
      'list': R.choice([None, [], [nested(known)], [nested(known), nested(known)]]),
      'set': R.choice([None, [], [nested(known)]]),
      'map': R.choice([None, {}, {'k': nested(known)}]),
      'rule': R.choice([[], [dict(inner(known), port=[])], [dict(inner(known), port=[inner(known)])]]),
      'disk': R.choice([[], [inner(known)]])})
    return d
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
for i in range(300):
    prior = root(True)
    prop = dict(prior) if R.random() < 0.7 else root(False)
    for k in list(prop):
        if R.random() < 0.2: prop[k] = root(False)[k]
    cfg = dict(prop)
    for k in ['id', 'kind', 'n', 'size', 'tags', 'mode']:
        if R.random() < 0.5: cfg[k] = None
    a, b, c = enc(prior), enc(prop), enc(cfg)
    open(os.path.join(out, 'seed%03d' % i), 'wb').write(struct.pack('>H', len(a)) + a + struct.pack('>H', len(b)) + b + c)
