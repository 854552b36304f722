#!/usr/bin/env python3
"""Output check of bench-serve.sh: for each URL of a file (a server's answers to fit-in requests),
the answer's size and its PSNR against Pillow's LANCZOS resize of the same source to the same size.

    serve_output.py WWW URLS     prints "mean_bytes mean_psnr_db"

The source is the file the URL names under WWW (the origin's folder, symbolic links followed).
"""
import os
import sys
import urllib.parse

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import decode, fetch, psnr  # noqa: E402


def main():
    www, listing = sys.argv[1:3]
    sizes, scores = [], []
    for url in open(listing).read().split():
        status, body, _ = fetch(url)
        if status != 200:
            sys.exit(f"{url}: status {status}")
        answer = decode(body)
        if isinstance(answer, str):
            sys.exit(f"{url}: {answer}")
        source_name = urllib.parse.urlsplit("http://" + url.split("/http://", 1)[1]).path.lstrip("/")
        source = Image.open(os.path.join(www, source_name)).convert("RGB")
        reference = source.resize(answer.size, Image.LANCZOS)
        sizes.append(len(body))
        scores.append(psnr(answer.rgb, reference))
    print(f"{sum(sizes) / len(sizes):.0f} {sum(scores) / len(scores):.2f}")


if __name__ == "__main__":
    main()
