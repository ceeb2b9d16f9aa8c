#!/usr/bin/python3
# Independent reference values for tests/unit/test_cubex.c.
#
# Decodes the profiles a second way -- Python's tarfile, xml.etree and
# struct, NumPy for the mean -- following what Extra-P's cube reader does
# (pycubexr): rows of an INCLUSIVE metric are in "wide" cnode order, of an
# EXCLUSIVE metric in depth-first order; inclusive values are turned
# exclusive by subtracting each child's values; the measurement is
# numpy.mean over all locations.  Writes expected.tsv: file, metric,
# callpath, value as a C99 hex float (bit-exact).
#
#   /usr/bin/python3 tests/data/lulesh/expected.py > tests/data/lulesh/expected.tsv
import os, struct, sys, tarfile
import xml.etree.ElementTree as ET
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
FILES = ["lulesh.p27.size25.r1", "lulesh.p125.size35.r1", "lulesh.p343.size45.r1"]

def read(path):
    t = tarfile.open(path)
    root = ET.fromstring(t.extractfile("anchor.xml").read())
    regions = {r.get("id"): r.findtext("name") for r in root.iter("region")}
    prog = root.find("program")
    cnodes = {}          # id -> (callpath, [child ids])
    roots = []
    def walk(el, parent):
        for cn in el.findall("cnode"):
            name = regions[cn.get("calleeId")]
            path = name if parent is None else cnodes[parent][0] + "->" + name
            cnodes[cn.get("id")] = (path, [c.get("id") for c in cn.findall("cnode")])
            if parent is None:
                roots.append(cn.get("id"))
            walk(cn, cn.get("id"))
    walk(prog, None)
    deep = []
    def dfs(i):
        deep.append(i)
        for c in cnodes[i][1]:
            dfs(c)
    wide = []
    def wid(i):
        for c in cnodes[i][1]:
            wide.append(c)
        for c in cnodes[i][1]:
            wid(c)
    for r in roots:
        dfs(r)
        wide.append(r)
        wid(r)
    nloc = len(list(root.iter("location")))
    out = {}
    for m in root.find("metrics").iter("metric"):
        mid, kind, name = m.get("id"), m.get("type"), m.findtext("uniq_name")
        if f"{mid}.index" not in t.getnames():
            continue
        ix = t.extractfile(f"{mid}.index").read()
        assert ix[:11] == b"CUBEX.INDEX" and struct.unpack("<i", ix[11:15])[0] == 1 and ix[17] == 1
        n = struct.unpack("<i", ix[18:22])[0]
        pos = struct.unpack(f"<{n}i", ix[22:22 + 4 * n])
        dt = {"DOUBLE": "d", "UINT64": "Q", "MINDOUBLE": "d", "MAXDOUBLE": "d"}[m.findtext("dtype")]
        raw = t.extractfile(f"{mid}.data").read()
        assert raw[:10] == b"CUBEX.DATA"
        vals = struct.unpack(f"<{n * nloc}{dt}", raw[10:])
        order = wide if kind == "INCLUSIVE" else deep
        stored = {order[p]: [float(x) for x in vals[r * nloc:(r + 1) * nloc]] for r, p in enumerate(pos)}
        zero = [0.0] * nloc
        for cid, (path, kids) in cnodes.items():
            v = list(stored.get(cid, zero))
            if kind == "INCLUSIVE":
                for k in kids:
                    kv = stored.get(k, zero)
                    for l in range(nloc):
                        v[l] -= kv[l]
            out[(name, path)] = np.mean(np.array(v))
    return out

print("# file\tmetric\tcallpath\tvalue (numpy.mean over locations, exclusive)")
for f in FILES:
    vals = read(os.path.join(here, f, "profile.cubex"))
    for (metric, path), v in sorted(vals.items()):
        print(f"{f}\t{metric}\t{path}\t{float(v).hex()}")
