#!/usr/bin/env python3
"""thumbor conformance of `kf serve --thumbor /`, with thumbor 7 itself as the oracle.

    thumbor_conformance.py --thumbor URL --kf URL --key KEY --origin HOST:PORT IMAGE... [--save DIR]

Builds signed thumbor URLs with libthumbor's CryptoURL (the PyPI client) for every geometry form
on every IMAGE and for the filters on a few of them, GETs each from both servers and compares:

  status   both 200, or both an error (any 4xx/5xx)
  format   the same image format (JPEG, PNG, WEBP, GIF), and for JPEG the same quality (read
           from the quantisation tables, within 1; not for max_bytes())
  size     the same pixel size, and the same frame count
  psnr     >= 30 dB between the two first frames, both flattened onto white, where the result is
           deterministic: not for max_bytes() (each server steps its own encoder's quality until
           the bytes fit, so quality legitimately differs) and not for GIF output (palette and
           dithering are each encoder's choice). blur() is compared: a Gaussian is well defined.

Differences the README lists under "What still differs" are reported as KNOWN, not as failures:
an animated GIF source with format(), fill() or rotate() (thumbor keeps it a GIF and skips those
two filters; kf serve does what the URL asks).

Beyond the matrix, EXTRA cases run on fixed images: trim on framed.png (a photo on a white
border), watermark() with wm.png (fetched from the same origin) at every kind of position, and
fill(auto), fill(blur) and fill(C, fill_transparent) on the photos and alpha.png.

Prints one line per failure and the summary line
`thumbor-conformance: urls=N same-size=N psnr-checked=N psnr-min=X.X failures=F known=K`; exits 1
on any failure. With --save DIR both bodies of every failing URL are written there.
"""
import argparse
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from libthumbor import CryptoURL

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import decode, fetch_all, psnr, short  # noqa: E402

PSNR_FLOOR = 30.0

# Every geometry form of the grammar, as libthumbor's generate() takes it.
GEOMETRY = [
    ("WxH", dict(width=300, height=200)),
    ("WxH-tall", dict(width=150, height=300)),
    ("Wx0", dict(width=300)),
    ("0xH", dict(height=200)),
    ("origxH", dict(width="orig", height=150)),
    ("Wxorig", dict(width=250, height="orig")),
    ("-WxH", dict(width=300, height=200, flip=True)),
    ("Wx-H", dict(width=300, height=200, flop=True)),
    ("-Wx-H", dict(width=300, height=200, flip=True, flop=True)),
    ("-0x0", dict(flip=True)),
    ("original", dict()),
    ("upscale-WxH", dict(width=900, height=700)),
    ("fit-in", dict(fit_in=True, width=300, height=200)),
    ("fit-in-Wx0", dict(fit_in=True, width=300)),
    ("fit-in-larger", dict(fit_in=True, width=3000, height=3000)),
    ("fit-in-flip", dict(fit_in=True, width=300, height=200, flip=True)),
    ("full-fit-in", dict(full_fit_in=True, width=300, height=200)),
    ("adaptive-fit-in", dict(adaptive_fit_in=True, width=300, height=200)),
    ("adaptive-full-fit-in", dict(adaptive_full_fit_in=True, width=300, height=200)),
    ("crop", dict(crop=((100, 50), (500, 350)))),
    ("crop-WxH", dict(crop=((100, 50), (500, 350)), width=200, height=100)),
    ("crop-fit-in", dict(crop=((20, 10), (380, 290)), fit_in=True, width=100, height=100)),
    ("halign-left", dict(width=300, height=300, halign="left")),
    ("halign-right", dict(width=300, height=300, halign="right")),
    ("valign-top", dict(width=300, height=100, valign="top")),
    ("valign-bottom", dict(width=300, height=100, valign="bottom")),
    ("left-top", dict(width=200, height=200, halign="left", valign="top")),
    ("smart", dict(width=300, height=200, smart=True)),
]

# Filters, each on a geometry, run on FILTER_IMAGES. deterministic=False: no PSNR comparison.
FILTERS = [
    ("format(jpeg)", dict(width=300, height=200)),
    ("format(png)", dict(width=300, height=200)),
    ("format(webp)", dict(width=300, height=200)),
    ("format(gif)", dict(width=300, height=200)),
    ("quality(40)", dict(width=300, height=200)),
    ("format(webp):quality(60)", dict(width=300, height=200)),
    ("strip_icc()", dict(width=300, height=200)),
    ("no_upscale()", dict(width=3000, height=2000)),
    ("no_upscale()", dict(fit_in=True, width=3000, height=2000)),
    ("max_bytes(6000)", dict(width=400, height=300)),
    ("fill(red)", dict(fit_in=True, width=400, height=400)),
    ("fill(00ff00)", dict(fit_in=True, width=300, height=500)),
    ("fill(white):format(png)", dict(fit_in=True, width=400, height=400)),
    ("blur(3)", dict(width=300, height=200)),
    ("blur(6,2)", dict(width=300, height=200)),
    ("grayscale()", dict(width=300, height=200)),
    ("rotate(90)", dict(width=300, height=200)),
    ("rotate(270)", dict(fit_in=True, width=300, height=200)),
    ("round_corner(20,255,255,255)", dict(width=300, height=200)),
    ("brightness(30)", dict(width=300, height=200)),
    ("brightness(-40)", dict(width=300, height=200)),
    ("contrast(40)", dict(width=300, height=200)),
    ("contrast(-30)", dict(width=300, height=200)),
    ("background_color(blue)", dict(width=300, height=200)),
    ("background_color(ff8800):format(jpeg)", dict(fit_in=True, width=300, height=200)),
    ("quality(90):strip_icc():format(jpeg)", dict(fit_in=True, width=512, height=512)),
]
FILTER_IMAGES = ("landscape.jpg", "portrait.jpg", "alpha.png", "anim.gif")

# (label, generate() options without image_url, image); "{wm}" in a filter is the watermark's URL.
EXTRA = [
    ("trim", dict(trim=True), "framed.png"),
    ("trim:top-left:10", dict(trim=("top-left", 10)), "framed.png"),
    ("trim:bottom-right", dict(trim=("bottom-right", None)), "framed.png"),
    ("trim fit-in", dict(trim=True, fit_in=True, width=150, height=150), "framed.png"),
    ("trim WxH", dict(trim=True, width=120, height=120), "framed.png"),
    ("trim crop", dict(trim=True, crop=((60, 60), (260, 200))), "framed.png"),
    ("watermark corner", dict(width=300, height=200, filters=["watermark({wm},10,10,0)"]), "landscape.jpg"),
    ("watermark right", dict(width=300, height=200, filters=["watermark({wm},-10,-10,30)"]), "landscape.jpg"),
    ("watermark center", dict(width=300, height=200, filters=["watermark({wm},center,center,50)"]), "portrait.jpg"),
    ("watermark percent", dict(width=300, height=200, filters=["watermark({wm},-20p,10p,0)"]), "landscape.jpg"),
    ("watermark repeat", dict(width=400, height=300, filters=["watermark({wm},repeat,repeat,60)"]), "landscape.jpg"),
    ("watermark repeat-x", dict(width=300, height=200, filters=["watermark({wm},repeat,-5,0)"]), "square.jpg"),
    ("watermark ratio", dict(width=300, height=200, filters=["watermark({wm},0,0,0,50)"]), "landscape.jpg"),
    ("watermark ratios", dict(width=300, height=200, filters=["watermark({wm},center,-0,0,none,20)"]), "portrait.jpg"),
    ("watermark on alpha", dict(fit_in=True, width=300, height=300, filters=["format(png)", "watermark({wm},0,0,20)"]),
     "alpha.png"),
    ("fill(auto)", dict(fit_in=True, width=400, height=400, filters=["fill(auto)"]), "landscape.jpg"),
    ("fill(auto) alpha", dict(fit_in=True, width=400, height=400, filters=["fill(auto)"]), "alpha.png"),
    ("fill(blur)", dict(fit_in=True, width=400, height=400, filters=["fill(blur)"]), "landscape.jpg"),
    ("fill(blur) tall", dict(fit_in=True, width=300, height=500, filters=["fill(blur)"]), "portrait.jpg"),
    ("fill(red) alpha", dict(fit_in=True, width=400, height=400, filters=["fill(red)", "format(png)"]), "alpha.png"),
    ("fill(red,true) alpha", dict(fit_in=True, width=400, height=400, filters=["fill(red,true)", "format(png)"]),
     "alpha.png"),
    ("format(heic)", dict(width=300, height=200, filters=["format(heic)"]), "landscape.jpg"),
]


def cases(images, origin):
    """(label, generate() options) for the whole matrix and the EXTRA cases."""
    for name in images:
        for label, options in GEOMETRY:
            yield f"{label} {name}", dict(options, image_url=name)
    for name in FILTER_IMAGES:
        if name not in images:
            continue
        for filters, options in FILTERS:
            yield f"filters:{filters} {name}", dict(options, filters=filters.replace("):", ")|").split("|"),
                                                        image_url=name)
    for label, options, name in EXTRA:
        filters = [f.replace("{wm}", f"{origin}/wm.png") for f in options.get("filters", [])]
        yield f"{label} {name}", dict(options, filters=filters, image_url=name) if filters else dict(options, image_url=name)


def deterministic(options, result):
    """Whether two correct servers give (nearly) the same pixels for this URL."""
    joined = ":".join(options.get("filters", []))
    return "max_bytes" not in joined and result.format != "GIF"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--thumbor", required=True)
    parser.add_argument("--kf", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--origin", required=True, help="HOST:PORT of the server holding the images")
    parser.add_argument("--save")
    parser.add_argument("images", nargs="+")
    arguments = parser.parse_args()

    crypto = CryptoURL(key=arguments.key)
    matrix = []
    for index, (label, options) in enumerate(cases(arguments.images, arguments.origin)):
        # Half the sources carry a scheme, half do not (thumbor prefixes http://): both are common.
        scheme = "http://" if index % 2 else ""
        options["image_url"] = f"{scheme}{arguments.origin}/{options['image_url']}"
        matrix.append((label, options, crypto.generate(**options)))

    def known_difference(label, options):
        """Whether a mismatch is one the README documents (see the module's doc)."""
        filters = ":".join(options.get("filters", []))
        return label.endswith("anim.gif") and any(name in filters for name in ("format(", "fill(", "rotate("))

    paths = [path for _, _, path in matrix]
    with ThreadPoolExecutor(2) as pool:
        thumbor, kf = pool.map(fetch_all, ([arguments.thumbor + path for path in paths],
                                           [arguments.kf + path for path in paths]))

    failures = same_size = checked = both_errors = known = 0
    scores = []
    lowest = math.inf
    for (label, options, path), (t_status, t_body, _), (k_status, k_body, _) in zip(matrix, thumbor, kf):
        problems = []
        if t_status != 200 or k_status != 200:
            if t_status == 200 or k_status == 200:
                failing = t_body if t_status != 200 else k_body
                problems.append(f"status thumbor={t_status} kf={k_status} ({short(failing)})")
            else:
                both_errors += 1
        else:
            ours, theirs = decode(k_body), decode(t_body)
            if isinstance(theirs, str) or isinstance(ours, str):
                problems.append(f"decode thumbor={theirs if isinstance(theirs, str) else 'ok'} "
                                f"kf={ours if isinstance(ours, str) else 'ok'}")
            else:
                if theirs.format != ours.format:
                    problems.append(f"format thumbor={theirs.format} kf={ours.format}")
                if (theirs.quality and ours.quality and abs(theirs.quality - ours.quality) > 1
                        and "max_bytes" not in ":".join(options.get("filters", []))):
                    problems.append(f"jpeg quality thumbor={theirs.quality} kf={ours.quality}")
                if theirs.frames != ours.frames:
                    problems.append(f"frames thumbor={theirs.frames} kf={ours.frames}")
                if theirs.size != ours.size:
                    problems.append(f"size thumbor={theirs.size[0]}x{theirs.size[1]} kf={ours.size[0]}x{ours.size[1]}")
                else:
                    same_size += 1
                    if deterministic(options, theirs):
                        checked += 1
                        value = psnr(theirs.rgb, ours.rgb)
                        lowest = min(lowest, value)
                        scores.append((value, label))
                        if value < PSNR_FLOOR:
                            problems.append(f"psnr {value:.1f} dB < {PSNR_FLOOR:.0f}")
        if problems and known_difference(label, options):
            known += 1
            print(f"KNOWN {label}: {'; '.join(problems)}  {path}")
        elif problems:
            failures += 1
            print(f"FAIL {label}: {'; '.join(problems)}  {path}")
            if arguments.save:
                os.makedirs(arguments.save, exist_ok=True)
                for who, body in (("thumbor", t_body), ("kf", k_body)):
                    with open(os.path.join(arguments.save, f"{failures:03d}-{who}"), "wb") as file:
                        file.write(body)

    passing = sorted(score for score in scores if score[0] >= PSNR_FLOOR)[:5]
    if passing:
        print("lowest passing PSNR: " + ", ".join(f"{label} {value:.1f}" for value, label in passing))
    minimum = "n/a" if not checked else ("inf" if lowest == math.inf else f"{lowest:.1f}")
    print(f"thumbor-conformance: urls={len(matrix)} same-size={same_size} psnr-checked={checked} "
          f"psnr-min={minimum} failures={failures} known={known} (both-errors={both_errors})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
