#!/bin/sh
# Regenerates the JPEG XL decode fixtures (decode-*.jxl) and their reference decodings
# (decode-*.png). Needs Debian's cjxl/djxl (libjxl-tools 0.7.0) and Python 3 with Pillow. Run
# from anywhere; writes next to this script. The older fixtures (small, alpha, container, wide,
# ratio) belong to the probe tests and are left alone.
#
# Sources are drawn or cut from Samples/kingfisher.jpg below. References are djxl's own 8-bit
# output, re-saved by Pillow without ancillary chunks (djxl's iCCP describes sRGB here); for the
# animations, Pillow splits djxl's APNG into one full-canvas PNG per frame. The two 16-bit files
# are the exception explained below. There is no premultiplied-alpha file: cjxl 0.7 ignores
# --premultiply for PNG input, and libjxl 0.7's encoder aborts when asked for associated alpha.
set -eu
cd "$(dirname "$0")"
samples="$(cd ../../../../Samples && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$samples/kingfisher.jpg" <<'PY'
import sys
from PIL import Image
work, photo = sys.argv[1], sys.argv[2]
W, H = 40, 28
crop = Image.open(photo).convert("RGB").crop((120, 180, 320, 320)).resize((W, H), Image.LANCZOS)
crop.save(f"{work}/photo.png")
alpha = crop.convert("RGBA")
alpha.putalpha(Image.linear_gradient("L").resize((W, H)).rotate(90))
px = alpha.load()
for y in range(H):
    for x in range(W):
        if x < 6:
            r, g, b, _ = px[x, y]
            px[x, y] = (r, g, b, 0 if y < H // 2 else 255)
alpha.save(f"{work}/alpha.png")
deep = Image.new("I;16", (W, H))
deep.putdata([(x * 1601 + y * 977) % 65536 for y in range(H) for x in range(W)])
deep.save(f"{work}/deep16.png")
# A 16-bit RGB source: Pillow writes 16-bit colour only through raw mode, so build the PNG by hand.
import struct, zlib
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
rows = b""
for y in range(H):
    rows += b"\0"
    for x in range(W):
        r = (x * 65535 // (W - 1)) ^ (y * 37)
        g = (y * 65535 // (H - 1)) ^ (x * 11)
        b = ((x + y) * 1543) % 65536
        rows += struct.pack(">HHH", r & 0xFFFF, g & 0xFFFF, b)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 16, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(f"{work}/rgb16.png", "wb").write(png)
small = Image.open(photo).convert("RGB").resize((48, 32), Image.LANCZOS)
exif = Image.Exif()
exif[0x0112] = 6
small.save(f"{work}/orient6.jpg", quality=90, exif=exif.tobytes())
frames, durations = [], [40, 120, 300, 70]
for i, colour in enumerate([(200, 40, 40, 255), (40, 200, 40, 160), (40, 40, 200, 255), (200, 200, 40, 90)]):
    frame = Image.new("RGBA", (32, 24), (30, 30, 30, 255 if i % 2 == 0 else 0))
    frame.paste(colour, (i * 6, 4, i * 6 + 12, 18))
    frames.append(frame)
frames[0].save(f"{work}/anim.png", save_all=True, append_images=frames[1:], duration=durations, loop=3,
               default_image=False, disposal=0, blend=0)
gif = [Image.new("P", (24, 16), 0) for _ in range(3)]
for i, frame in enumerate(gif):
    frame.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
    frame.paste(i + 1, (i * 6, 2, i * 6 + 8, 14))
gif[0].save(f"{work}/anim.gif", save_all=True, append_images=gif[1:], duration=[50, 200, 90], loop=0, disposal=1)
PY

cjxl "$work/photo.png" decode-lossy.jxl -d 1.0 -e 7 --quiet
cjxl "$work/photo.png" decode-lossless.jxl -d 0 -e 7 --quiet
cjxl "$work/alpha.png" decode-alpha-lossy.jxl -d 1.0 --quiet
cjxl "$work/alpha.png" decode-alpha-lossless.jxl -d 0 --quiet
cjxl "$work/orient6.jpg" decode-orientation6.jxl --lossless_jpeg=1 --quiet
cjxl "$work/rgb16.png" decode-16bit.jxl -d 0 --quiet
cjxl "$work/deep16.png" decode-gray16.jxl -d 0 --quiet
cjxl "$work/anim.png" decode-animated.jxl -d 0 --quiet
cjxl "$work/anim.gif" decode-gif.jxl --quiet
cjxl "$work/photo.png" decode-container.jxl -d 1.0 --container=1 --quiet
cp "$work/photo.png" source-photo.png
cp "$work/alpha.png" source-alpha.png

for name in lossy lossless alpha-lossy alpha-lossless orientation6 container; do
    djxl "decode-$name.jxl" "$work/$name.png" --bits_per_sample=8 --quiet
    python3 -c "import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.info.clear(); i.save(sys.argv[2])" \
        "$work/$name.png" "decode-$name.png"
done
# djxl 0.7 cannot write 16-bit sources at 8 bits: --bits_per_sample=8 gives garbage for RGB and is
# ignored for grey (its PGM then carries 16-bit samples under a maxval of 255). Their references
# are djxl's 16-bit PNGs rounded here to 8 bits as libjxl rounds its own output,
# round(v * 255 / 65535).
for name in 16bit gray16; do
    djxl "decode-$name.jxl" "$work/$name.png" --quiet
    python3 - "$work/$name.png" "decode-$name.png" <<'PY'
import sys, zlib, struct
# Pillow reads 16-bit RGB PNGs as 8-bit, so the samples are read from the PNG here.
data = open(sys.argv[1], "rb").read()
offset, idat, header = 8, b"", None
while offset < len(data):
    length, kind = struct.unpack(">I4s", data[offset:offset + 8])
    body = data[offset + 8:offset + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    offset += 12 + length
width, height, depth, colour, _, _, interlace = header
assert depth == 16 and interlace == 0 and colour in (0, 2)
channels = 3 if colour == 2 else 1
raw = zlib.decompress(idat)
stride = width * channels * 2
bpp = channels * 2
rows, previous = [], bytearray(stride)
for y in range(height):
    kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        left = line[i - bpp] if i >= bpp else 0
        up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
        if kind == 1: line[i] = (line[i] + left) & 255
        elif kind == 2: line[i] = (line[i] + up) & 255
        elif kind == 3: line[i] = (line[i] + (left + up) // 2) & 255
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
    rows.append(bytes(line))
    previous = line
from PIL import Image
samples = [(v * 255 + 32767) // 65535 for row in rows for (v,) in struct.iter_unpack(">H", row)]
image = Image.frombytes("RGB" if channels == 3 else "L", (width, height), bytes(samples))
image.save(sys.argv[2])
PY
done
for name in animated gif; do
    djxl "decode-$name.jxl" "$work/$name.png" --bits_per_sample=8 --quiet
    python3 - "$work/$name.png" "decode-$name" <<'PY'
import sys
from PIL import Image, ImageSequence
with Image.open(sys.argv[1]) as animation:
    for index, frame in enumerate(ImageSequence.Iterator(animation)):
        rgba = frame.convert("RGBA")
        rgba.info.clear()
        rgba.save(f"{sys.argv[2]}-{index}.png")
        print(sys.argv[2], index, frame.info.get("duration"))
PY
done

# Display P3 (the colour fixtures' p3.png, with its iCCP): lossless keeps the P3 pixels and the
# profile, which Kingfisher hands to colour management; its reference is the source converted to
# sRGB by Pillow's ImageCms (lcms2, relative colorimetric), as the colour fixtures' expectations
# are made. Lossy is XYB, which Kingfisher asks libjxl to give out in sRGB.
cjxl ../color/p3.png decode-p3-lossless.jxl -d 0 --quiet
cjxl ../color/p3.png decode-p3-lossy.jxl -d 1.0 --quiet
# For the lossy file the reference is djxl asked for sRGB, as Kingfisher asks libjxl.
djxl decode-p3-lossy.jxl "$work/p3-lossy.png" --color_space=RGB_D65_SRG_Rel_SRG --quiet
python3 -c "import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.info.clear(); i.save(sys.argv[2])" \
    "$work/p3-lossy.png" decode-p3-lossy.png
python3 - ../color/p3.png p3-srgb.png <<'PY'
import io, sys
from PIL import Image, ImageCms
source = Image.open(sys.argv[1])
p3 = ImageCms.ImageCmsProfile(io.BytesIO(source.info["icc_profile"]))
srgb = ImageCms.createProfile("sRGB")
converted = ImageCms.profileToProfile(source, p3, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                      outputMode="RGBA")
converted.info.clear()
converted.save(sys.argv[2])
PY
