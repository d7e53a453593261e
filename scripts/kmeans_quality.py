#!/usr/bin/env python3
"""k-means quality of `clprim kmeans` against scikit-learn's KMeans(n_init=10).

For each photograph of examples/data, in colour and in grey (floor((r+g+b)/3),
the library's grey level, written as a grey PNG that clprim clusters as GREY8),
and each K: scikit-learn's inertia on the same pixels
(float values 0..255), then `clprim kmeans --restarts 1` and `--restarts 4`,
whose printed inertia is divided by scikit-learn's. Needs numpy, Pillow and
scikit-learn (pip install scikit-learn pillow); not dependencies of the project.

usage: scripts/kmeans_quality.py build/src/cli/clprim examples/data [K ...]
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from sklearn.cluster import KMeans


def clprim_inertia(clprim, path, k, restarts, out):
    text = subprocess.run([clprim, "kmeans", path, out, "-k", str(k), "--restarts", str(restarts)],
                          check=True, capture_output=True, text=True).stdout
    channels = re.search(r"\d+ x \d+ (\w+), k =", text).group(1)
    if path.endswith("-grey.png") != (channels == "grey"):
        sys.exit(f"{path} was read as {channels}")
    return float(re.search(r"^inertia (\S+)", text, re.M).group(1))


def main():
    clprim, data = sys.argv[1], sys.argv[2]
    ks = [int(k) for k in sys.argv[3:]] or [2, 4, 8, 16, 32]
    tmp = tempfile.mkdtemp()
    print("| image | K | sklearn inertia | restarts 1 | restarts 4 |")
    print("| --- | --- | --- | --- | --- |")
    for name in ["coffee", "chelsea", "astronaut"]:
        rgb = np.asarray(Image.open(os.path.join(data, name + ".png")).convert("RGB"))
        grey = (rgb.astype(np.uint32).sum(axis=2) // 3).astype(np.uint8)
        grey_path = os.path.join(tmp, name + "-grey.png")
        Image.fromarray(grey, "L").save(grey_path)
        for kind, path, pixels in [("colour", os.path.join(data, name + ".png"), rgb.reshape(-1, 3)),
                                   ("grey", grey_path, grey.reshape(-1, 1))]:
            x = pixels.astype(np.float64)
            for k in ks:
                ref = KMeans(n_clusters=k, n_init=10, random_state=0).fit(x).inertia_
                r1, r4 = (clprim_inertia(clprim, path, k, r, os.path.join(tmp, "out.png")) / ref for r in (1, 4))
                print(f"| {name} {kind} | {k} | {ref:.4e} | {r1:.4f} | {r4:.4f} |", flush=True)


if __name__ == "__main__":
    main()
