#!/usr/bin/env python3
"""imgproxy conformance of `kf serve --imgproxy /`, with URLs from the `imgproxy` PyPI client (klen).

    imgproxy_conformance.py --kf URL --key HEX --salt HEX --origin HOST:PORT --www DIR IMAGE...

There is no imgproxy here to compare with, so each answer is held to imgproxy's documented rules
(its processing/prepare.go calcScale and the fill crop): status 200, the output format (the URL's
extension, else the source's, imgproxy's preferred formats being jpeg,png,gif), for JPEG the
quality (IMGPROXY_QUALITY's 80, or q:N; read from the quantisation tables) and the pixel size:

  fit    shrink to fit inside W×H (a 0 side follows the other), never enlarge unless el:1
  fill   shrink to cover W×H, then crop to W×H (clamped to the image when it was not enlarged)
  auto   fill when source and box have the same orientation (square counts as landscape), else fit

A size within 1 px of the rule on each side passes (libvips and kf may round a scaled side
differently). Prints one line per failure and
`imgproxy-conformance: urls=N sized-ok=N failures=F`; exits 1 on any failure.
"""
import argparse
import os
import sys

from imgproxy import ImgProxy
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import decode, fetch_all, short  # noqa: E402

BOXES = [(300, 200), (200, 300), (150, 150), (300, 0), (0, 200), (3000, 3000), (3000, 0)]
FORMATS = {"jpg": "JPEG", "jpeg": "JPEG", "png": "PNG", "webp": "WEBP", "gif": "GIF"}


def expected_size(kind, source, box, enlarge):
    """imgproxy's result size for rs:KIND:W:H:ENLARGE on a source of `source` pixels."""
    src_w, src_h = source
    width, height = box
    dst_w, dst_h = width or src_w, height or src_h
    w_shrink = 1 if dst_w == src_w else src_w / dst_w
    h_shrink = 1 if dst_h == src_h else src_h / dst_h
    if w_shrink != 1 or h_shrink != 1:
        if kind == "auto":
            same = (src_w - src_h >= 0 and dst_w - dst_h >= 0) or (src_w - src_h < 0 and dst_w - dst_h < 0)
            kind = "fill" if same else "fit"
        if width == 0:
            w_shrink = h_shrink
        elif height == 0:
            h_shrink = w_shrink
        elif kind == "fit":
            w_shrink = h_shrink = max(w_shrink, h_shrink)
        else:
            w_shrink = h_shrink = min(w_shrink, h_shrink)
    elif kind == "auto":
        kind = "fit"
    if not enlarge:
        least = min(w_shrink, h_shrink)
        if least < 1:
            w_shrink, h_shrink = w_shrink / least, h_shrink / least
    out_w, out_h = round(src_w / w_shrink), round(src_h / h_shrink)
    if kind == "fill":
        out_w = min(out_w, width) if width else out_w
        out_h = min(out_h, height) if height else out_h
    return out_w, out_h


def cases(images):
    """(label, ImgProxy URL path, kind, box, enlarge, extension, image)."""
    for name in images:
        for kind in ("fit", "fill", "auto"):
            for box in BOXES:
                for enlarge in ((False, True) if box[0] >= 3000 else (False,)):
                    yield name, kind, box, enlarge, "", ()
    for name in images[:2]:
        for extension in ("png", "webp", "jpg"):
            yield name, "fit", (300, 300), False, extension, ()
        for gravity in ("no", "soea", "we", "sm"):
            yield name, "fill", (300, 300), False, "", ("g", gravity)
        for advanced in ("q:50", "f:png", "bl:2", "ar:1"):
            yield name, "fit", (240, 240), False, "", ("advanced", advanced)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kf", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--salt", required=True)
    parser.add_argument("--origin", required=True)
    parser.add_argument("--www", required=True, help="the folder the origin serves (to read source sizes)")
    parser.add_argument("images", nargs="+")
    arguments = parser.parse_args()

    sizes = {name: Image.open(os.path.join(arguments.www, name)).size for name in arguments.images}
    source_formats = {name: Image.open(os.path.join(arguments.www, name)).format for name in arguments.images}
    matrix = []
    for name, kind, box, enlarge, extension, extra in cases(arguments.images):
        options = dict(key=arguments.key, salt=arguments.salt, resizing_type=kind, width=box[0], height=box[1],
                       enlarge=enlarge, extension=extension)
        if extra and extra[0] == "g":
            options["gravity"] = extra[1]
        if extra and extra[0] == "advanced":
            options["advanced"] = [extra[1]]
        path = str(ImgProxy(f"http://{arguments.origin}/{name}", **options))
        fmt = FORMATS.get(extension) or (FORMATS["png"] if extra == ("advanced", "f:png") else source_formats[name])
        label = f"rs:{kind}:{box[0]}:{box[1]}:{int(enlarge)}{' ' + ':'.join(extra) if extra else ''}" \
                f"{'.' + extension if extension else ''} {name}"
        matrix.append((label, path, expected_size(kind, sizes[name], box, enlarge), fmt))

    answers = fetch_all([arguments.kf + path for _, path, _, _ in matrix])
    failures = sized = 0
    for (label, path, size, fmt), (status, body, _) in zip(matrix, answers):
        problems = []
        if status != 200:
            problems.append(f"status {status} ({short(body)})")
        else:
            image = decode(body)
            if isinstance(image, str):
                problems.append(image)
            else:
                if image.format != fmt:
                    problems.append(f"format expected={fmt} got={image.format}")
                quality = 50 if "q:50" in path else 80
                if image.quality is not None and abs(image.quality - quality) > 1:
                    problems.append(f"jpeg quality expected={quality} got={image.quality}")
                if abs(image.size[0] - size[0]) <= 1 and abs(image.size[1] - size[1]) <= 1:
                    sized += 1
                else:
                    problems.append(f"size expected={size[0]}x{size[1]} got={image.size[0]}x{image.size[1]}")
        if problems:
            failures += 1
            print(f"FAIL {label}: {'; '.join(problems)}  {path}")
    print(f"imgproxy-conformance: urls={len(matrix)} sized-ok={sized} failures={failures}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
