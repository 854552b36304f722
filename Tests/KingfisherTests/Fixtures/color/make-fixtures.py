#!/usr/bin/env python3
"""Regenerates the colour-management fixtures and their expected values (needs Pillow with ImageCms).

Run from this folder: python3 make-fixtures.py. Writes:
  p3.icc, adobe-rgb.icc       v2 matrix/TRC profiles written by hand below (Display P3, Adobe RGB 1998)
  cmyk.icc                    a small v2 CMYK output profile: lut8 A2B0 (3-point grid) to Lab
  gray.icc                    a v2 gray profile, kTRC gamma 2.2
  p3.jpg                      Display P3 JPEG, its profile split over two APP2 chunks
  adobe-rgb.jpg               Adobe RGB JPEG
  p3.png, p3.webp             Display P3 RGBA with iCCP / ICCP (the WebP lossless)
  p3-animated.png, p3-animated.webp  two frames (the patches, then them reversed) with the same profile
  srgb.jpg                    tagged with Pillow's own sRGB profile
  corrupt-icc.jpg             same pixels as p3.jpg, its ICC_PROFILE chunk garbage
  cmyk.jpg, cmyk-noprofile.jpg  CMYK JPEGs (Adobe-inverted, as Pillow writes them), with and without cmyk.icc
  expected.json               per fixture, per patch: source RGBA(or CMYK) and the expected sRGB RGBA

Expected values come from Pillow: each fixture is decoded by Pillow, its patch centres converted by
ImageCms (lcms2) with the relative colorimetric intent; the naive CMYK formula for the profile-less one.
"""
import io
import json
import struct

from PIL import Image, ImageCms

PATCH = 8  # JPEG blocks: flat 8x8 patches survive quality 100 without subsampling within 1


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def tag_xyz(xyz):
    return b"XYZ " + b"\0" * 4 + b"".join(s15(c) for c in xyz)


def tag_desc(text):
    ascii_ = text.encode() + b"\0"
    return b"desc" + b"\0" * 4 + struct.pack(">I", len(ascii_)) + ascii_ + b"\0" * 11 + b"\0" * 67


def icc(device, pcs, profile_class, tags):
    """A v2.1 profile: header, tag table, tag data (each 4-byte aligned)."""
    body = b""
    table = []
    offset = 128 + 4 + 12 * len(tags)
    for signature, data in tags:
        while len(data) % 4:
            data += b"\0"
        table.append((signature, offset + len(body), len(data)))
        body += data
    size = offset + len(body)
    header = struct.pack(">I", size) + b"none" + bytes([2, 0x10, 0, 0]) + profile_class + device + pcs
    header += b"\0" * 12 + b"acsp" + b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + b"\0" * 4
    header += s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4
    header += b"\0" * (128 - len(header))
    table_bytes = struct.pack(">I", len(tags)) + b"".join(
        s.encode() + struct.pack(">II", o, n) for s, o, n in table)
    return header + table_bytes + body


def mat3(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def inv3(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def colorants(primaries, white):
    """D50-adapted XYZ columns of an RGB space (Bradford), as ICC v2/v4 writers store them."""
    cols = [[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]
    w = [white[0] / white[1], 1.0, (1 - white[0] - white[1]) / white[1]]
    m = [[cols[c][r] for c in range(3)] for r in range(3)]
    mi = inv3(m)
    s = [sum(mi[r][k] * w[k] for k in range(3)) for r in range(3)]
    brad = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    d50 = [0.9642, 1.0, 0.8249]
    src = [sum(brad[r][k] * w[k] for k in range(3)) for r in range(3)]
    dst = [sum(brad[r][k] * d50[k] for k in range(3)) for r in range(3)]
    gain = [[dst[r] / src[r] if r == c else 0 for c in range(3)] for r in range(3)]
    adapt = mat3(inv3(brad), mat3(gain, brad))
    return [[sum(adapt[r][k] * cols[c][k] * s[c] for k in range(3)) for r in range(3)] for c in range(3)]


def rgb_profile(name, primaries, trc):
    r, g, b = colorants(primaries, (0.3127, 0.3290))
    return icc(b"RGB ", b"XYZ ", b"mntr", [
        ("desc", tag_desc(name)), ("wtpt", tag_xyz([0.9642, 1.0, 0.8249])),
        ("rXYZ", tag_xyz(r)), ("gXYZ", tag_xyz(g)), ("bXYZ", tag_xyz(b)),
        ("rTRC", trc), ("gTRC", trc), ("bTRC", trc)])


# sRGB's curve as a parametric curve (function 3), as Apple writes Display P3.
SRGB_PARA = b"para" + b"\0" * 4 + struct.pack(">HH", 3, 0) + b"".join(
    s15(v) for v in [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
P3 = rgb_profile("Display P3 (fixture)", [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], SRGB_PARA)
# Adobe RGB (1998): gamma 563/256 as a one-entry curv.
ADOBE = rgb_profile("Adobe RGB 1998 (fixture)", [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)],
                    b"curv" + b"\0" * 4 + struct.pack(">IH", 1, 563) + b"\0\0")


def srgb_to_lab(rgb):
    lin = [((c / 255 + 0.055) / 1.055) ** 2.4 if c / 255 > 0.04045 else c / 255 / 12.92 for c in rgb]
    cols = colorants([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)], (0.3127, 0.3290))
    xyz = [sum(cols[c][r] * lin[c] for c in range(3)) for r in range(3)]
    d50 = [0.9642, 1.0, 0.8249]
    f = [(v / w) ** (1 / 3) if v / w > 216 / 24389 else (24389 / 27 * v / w + 16) / 116 for v, w in zip(xyz, d50)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def cmyk_profile():
    """lut8 A2B0, 3 grid points per ink: naive CMYK to RGB, darkened (gamma 1.3) so it differs from naive."""
    grid = 3
    clut = b""
    for c in range(grid):
        for m in range(grid):
            for y in range(grid):
                for k in range(grid):
                    inks = [v / (grid - 1) for v in (c, m, y, k)]
                    rgb = [255 * ((1 - i) * (1 - inks[3])) ** 1.3 for i in inks[:3]]
                    lab = srgb_to_lab(rgb)
                    clut += bytes([round(lab[0] * 255 / 100), round(lab[1] + 128), round(lab[2] + 128)])
    identity = b"".join(s15(1.0 if r == c else 0.0) for r in range(3) for c in range(3))
    ramp = bytes(range(256))
    lut = b"mft1" + b"\0" * 4 + bytes([4, 3, grid, 0]) + identity + ramp * 4 + clut + ramp * 3
    return icc(b"CMYK", b"Lab ", b"prtr", [
        ("desc", tag_desc("CMYK (fixture)")), ("wtpt", tag_xyz([0.9642, 1.0, 0.8249])), ("A2B0", lut)])


CMYK = cmyk_profile()
GRAY = icc(b"GRAY", b"XYZ ", b"mntr", [
    ("desc", tag_desc("Gray 2.2 (fixture)")), ("wtpt", tag_xyz([0.9642, 1.0, 0.8249])),
    ("kTRC", b"curv" + b"\0" * 4 + struct.pack(">IH", 1, round(2.2 * 256)) + b"\0\0")])

RGB_PATCHES = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (200, 120, 40), (30, 160, 210), (128, 128, 128),
               (250, 250, 250), (10, 20, 30)]
ALPHAS = [255, 255, 128, 255, 64, 255, 200, 255]
CMYK_PATCHES = [(0, 0, 0, 0), (255, 0, 0, 0), (0, 255, 0, 0), (0, 0, 255, 0), (0, 0, 0, 255),
                (100, 50, 20, 30), (20, 180, 90, 10), (60, 60, 60, 128)]


def patches(mode, values):
    image = Image.new(mode, (PATCH * len(values), PATCH))
    for index, value in enumerate(values):
        image.paste(value, (index * PATCH, 0, (index + 1) * PATCH, PATCH))
    return image


def centres(image, count):
    return [list(image.getpixel((i * PATCH + PATCH // 2, PATCH // 2))) for i in range(count)]


def transform_rgb(image, profile):
    source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
    target = ImageCms.createProfile("sRGB")
    return ImageCms.profileToProfile(image, source, target, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)


def with_split_icc(jpeg, profile):
    """Inserts the profile after SOI as two APP2 ICC_PROFILE chunks (sequence 1 and 2 of 2)."""
    half = len(profile) // 2
    segments = b""
    for number, part in enumerate([profile[:half], profile[half:]], start=1):
        payload = b"ICC_PROFILE\0" + bytes([number, 2]) + part
        segments += b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload
    return jpeg[:2] + segments + jpeg[2:]


def main():
    expected = {}
    for name, data in [("p3.icc", P3), ("adobe-rgb.icc", ADOBE), ("cmyk.icc", CMYK), ("gray.icc", GRAY)]:
        open(name, "wb").write(data)

    rgb = patches("RGB", RGB_PATCHES)
    plain = io.BytesIO()
    rgb.save(plain, "JPEG", quality=100, subsampling=0)
    open("p3.jpg", "wb").write(with_split_icc(plain.getvalue(), P3))
    rgb.save("adobe-rgb.jpg", "JPEG", quality=100, subsampling=0, icc_profile=ADOBE)
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    rgb.save("srgb.jpg", "JPEG", quality=100, subsampling=0, icc_profile=srgb)
    rgb.save("corrupt-icc.jpg", "JPEG", quality=100, subsampling=0, icc_profile=P3[:40] + b"\xa5" * 300)
    for name, profile in [("p3.jpg", P3), ("adobe-rgb.jpg", ADOBE)]:
        decoded = Image.open(name).convert("RGB")
        converted = transform_rgb(decoded, profile)
        expected[name] = {"source": centres(decoded, len(RGB_PATCHES)),
                          "srgb": centres(converted, len(RGB_PATCHES))}

    rgba = patches("RGBA", [value + (alpha,) for value, alpha in zip(RGB_PATCHES, ALPHAS)])
    rgba.save("p3.png", icc_profile=P3)
    rgba.save("p3.webp", lossless=True, exact=True, icc_profile=P3)
    converted = transform_rgb(rgba.convert("RGB"), P3)
    for name in ["p3.png", "p3.webp"]:
        expected[name] = {"source": centres(rgba, len(RGB_PATCHES)),
                          "srgb": [rgb + [a] for rgb, a in zip(centres(converted, len(RGB_PATCHES)), ALPHAS)]}

    reversed_ = patches("RGBA", [value + (255,) for value in reversed(RGB_PATCHES)])
    opaque = patches("RGBA", [value + (255,) for value in RGB_PATCHES])
    opaque.save("p3-animated.png", save_all=True, append_images=[reversed_], duration=100, icc_profile=P3)
    opaque.save("p3-animated.webp", save_all=True, append_images=[reversed_], duration=100, lossless=True,
                icc_profile=P3)
    converted = centres(transform_rgb(opaque.convert("RGB"), P3), len(RGB_PATCHES))
    for name in ["p3-animated.png", "p3-animated.webp"]:
        expected[name] = {"source": centres(opaque, len(RGB_PATCHES)),
                          "srgb": [rgb + [255] for rgb in converted]}

    cmyk = patches("CMYK", CMYK_PATCHES)
    cmyk.save("cmyk.jpg", "JPEG", quality=100, icc_profile=CMYK)
    cmyk.save("cmyk-noprofile.jpg", "JPEG", quality=100)
    decoded = Image.open("cmyk.jpg")
    source = ImageCms.ImageCmsProfile(io.BytesIO(CMYK))
    target = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))
    converted = ImageCms.profileToProfile(decoded, source, target, outputMode="RGB",
                                          renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    inks = centres(decoded, len(CMYK_PATCHES))
    expected["cmyk.jpg"] = {"source": inks, "srgb": [p + [255] for p in centres(converted, len(CMYK_PATCHES))]}
    inks = centres(Image.open("cmyk-noprofile.jpg"), len(CMYK_PATCHES))
    naive = [[round((255 - c) * (255 - ink[3]) / 255) for c in ink[:3]] + [255] for ink in inks]
    expected["cmyk-noprofile.jpg"] = {"source": inks, "srgb": naive}

    levels = list(range(0, 256, 15))
    ramp = Image.new("L", (len(levels), 1))
    ramp.putdata(levels)
    gray = ImageCms.profileToProfile(ramp, ImageCms.ImageCmsProfile(io.BytesIO(GRAY)),
                                     ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")), outputMode="RGB",
                                     renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    expected["gray.icc"] = {"source": [[v, v, v, 255] for v in levels],
                            "srgb": [list(gray.getpixel((i, 0))) + [255] for i in range(len(levels))]}

    with open("expected.json", "w") as out:
        json.dump(expected, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
