#!/bin/sh
# Regenerates the HDR fixtures. Needs Python 3 (standard library only), Debian's avifenc
# (libavif-bin 0.11.1) and cjxl (libjxl-tools 0.7). Run from anywhere; writes next to this script.
#
# Each file is one row of eight 8x8 patches, 64x8 pixels, BT.2020 primaries. Patches 0-6 are grey
# at 0, 50, 100, 150, 203, 400 and 1000 cd/m2; patch 7 is the BT.2020 equivalent of linear sRGB
# (0.5, 0.25, 0.1) times 203 cd/m2. The PQ files hold those luminances through ST 2084's inverse
# EOTF; the HLG files hold the signal whose BT.2100 OOTF (1000 cd/m2 display, gamma 1.2) gives the
# same luminances, so every PQ patch and its HLG twin show the same light.
#   pq-lossless.avif   12-bit 4:4:4 lossless, CICP 9/16/0
#   hlg-lossless.avif  12-bit 4:4:4 lossless, CICP 9/18/0
#   pq-lossless.jxl    16-bit lossless, colour encoding Rec.2100 PQ
#   hlg-lossless.jxl   16-bit lossless, colour encoding Rec.2100 HLG
#   pq-lossy.jxl       VarDCT (XYB) at distance 0.5, colour encoding Rec.2100 PQ
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import math, struct, sys, zlib
work = sys.argv[1]
NITS = [0, 50, 100, 150, 203, 400, 1000]
TO_2020 = [[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]
colour = [sum(TO_2020[r][c] * v for c, v in enumerate([0.5, 0.25, 0.1])) * 203 for r in range(3)]
patches = [[n, n, n] for n in NITS] + [colour]

def pq(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = (nits / 10000) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2

def hlg_signal(scene):
    a = 0.17883277; b = 1 - 4 * a; c = 0.5 - a * math.log(4 * a)
    return math.sqrt(3 * scene) if scene <= 1 / 12 else a * math.log(12 * scene - b) + c

def hlg(rgb):
    # Inverse OOTF: Fd = 1000 * Ys^0.2 * E, so Ys = (Yd / 1000)^(1/1.2) and E = Fd / (1000 * Ys^0.2).
    yd = 0.2627 * rgb[0] + 0.6780 * rgb[1] + 0.0593 * rgb[2]
    if yd <= 0:
        return [0, 0, 0]
    ys = (yd / 1000) ** (1 / 1.2)
    return [hlg_signal(v / (1000 * ys ** 0.2)) for v in rgb]

def png16(path, samples):
    raw = b""
    for y in range(8):
        raw += b"\0" + b"".join(struct.pack(">HHH", *samples[x // 8]) for x in range(64))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 8, 16, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))

code = lambda v: round(min(1, max(0, v)) * 65535)
png16(f"{work}/pq.png", [[code(pq(v)) for v in p] for p in patches])
png16(f"{work}/hlg.png", [[code(v) for v in hlg(p)] for p in patches])
PY

avifenc -l -d 12 --cicp 9/16/0 "$work/pq.png" pq-lossless.avif >/dev/null
avifenc -l -d 12 --cicp 9/18/0 "$work/hlg.png" hlg-lossless.avif >/dev/null
cjxl -d 0 -x color_space=RGB_D65_202_Rel_PeQ "$work/pq.png" pq-lossless.jxl 2>/dev/null
cjxl -d 0 -x color_space=RGB_D65_202_Rel_HLG "$work/hlg.png" hlg-lossless.jxl 2>/dev/null
cjxl -d 0.5 -x color_space=RGB_D65_202_Rel_PeQ "$work/pq.png" pq-lossy.jxl 2>/dev/null
