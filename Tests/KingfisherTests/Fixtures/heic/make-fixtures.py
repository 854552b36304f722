#!/usr/bin/env python3
"""Makes the HEIC fixtures of HEICCodecTests and their reference decodes.

Needs Python 3 with Pillow, and Debian's libheif-examples 1.15 (heif-enc, heif-convert).
Run from anywhere; it writes next to itself:

  rgb8.heic      32x24, 8-bit 4:2:0                     (heif-enc -q 90)
  rgb10.heic     32x24, 10-bit, from a 16-bit PNG        (heif-enc -b 10)
  mono.heic      32x24 monochrome (heif-enc from a grayscale PNG)
  lossless444.heic  rgb8's picture, lossless 4:4:4 RGB (heif-enc -L -p chroma=444 --matrix_coefficients=0)
  alpha.heic     32x24 with a soft alpha ramp            (heif-enc, alpha kept)
  premul.heic    alpha.heic's picture premultiplied, flagged so (heif-enc --premultiplied-alpha);
                 its reference is premul.rgba, heif-convert's RGBA bytes as written (still premultiplied)
  icc.heic       rgb8 with an sRGB ICC profile ('prof')  (heif-enc copies the PNG's iCCP)
                 (lcms stamps the profile with the time it was made, so icc.heic differs on every run)
  nclx.heic      rgb8 with a 'colr' nclx box (primaries 12, transfer 13: Display P3), added here
  thumb.heic     64x48 with a 16x12 thumbnail            (heif-enc -t 16)
  rot90.heic     rgb8 with irot 1 (a quarter turn anticlockwise), added here
  mirror.heic    rgb8 with imir 1, added here
  rotmirror.heic rgb8 with irot 3 then imir 0, added here
  exifrot.heic   rgb8 with irot 1 and an Exif item whose Orientation tag is 6
  cliprot.heic   rgb8 with clap 20x14 (centred) then irot 2, added here
  thumbrot.heic  thumb.heic with irot 1 on the primary only (the thumbnail no longer fits it)
  thumbrot2.heic thumb.heic with irot 1 on the primary and on the thumbnail
  thumbalpha.heic   64x48 with alpha and a 16x12 thumbnail with alpha (heif-enc -t 16)
  thumbnoalpha.heic the same, thumbnail without alpha (heif-enc -t 16 --no-thumb-alpha)
  thumbp3.heic   thumb.heic with an nclx box (Display P3) on the primary only, as heif-enc leaves
                 a thumbnail without 'colr' (no reference decode)
  grid.heic      a 2x2 grid of four 64x64 tiles (each coded separately by heif-enc), shown 120x100
  stillseq.heic  rgb8 with brands msf1/hevs and an empty 'moov' appended: a sequence file with a still

and <name>.png for the others, written by heif-convert (16-bit for rgb10; any eXIf chunk removed).

The box edits re-read heif-enc's output into items (type, properties, data, references) and write
a fresh file: ftyp, meta (hdlr, pitm, iinf, iref, iprp, iloc), then one mdat holding every item's data.
"""
import os
import struct
import subprocess
import tempfile
import zlib

from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind.encode() + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def children(data, start, end):
    """The (type, payload start, box end) of each box in data[start:end]."""
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        elif size == 0:
            size = end - offset
        yield kind.decode("latin-1"), offset + header, offset + size
        offset += size


def read_uint(data, offset, size):
    return int.from_bytes(data[offset:offset + size], "big") if size else 0


class Item:
    def __init__(self, item_id, kind, hidden=False, data=b"", properties=None):
        self.id = item_id
        self.kind = kind
        self.hidden = hidden
        self.data = data
        # (raw property box, essential)
        self.properties = properties or []


class HEIF:
    """The items of a HEIF file, read from heif-enc's output and written back."""

    def __init__(self, data):
        self.brands = ("heic", ["mif1", "heic", "miaf"])
        self.items = {}
        self.refs = []  # (type, from, [to])
        self.primary = None
        meta = next((s, e) for k, s, e in children(data, 0, len(data)) if k == "meta")
        start = meta[0] + 4
        boxes = {k: (s, e) for k, s, e in children(data, start, meta[1])}
        self.primary = struct.unpack(">H", data[boxes["pitm"][0] + 4:boxes["pitm"][0] + 6])[0]
        idat = data[boxes["idat"][0]:boxes["idat"][1]] if "idat" in boxes else b""
        s, e = boxes["iinf"]
        version = data[s]
        for kind, es, ee in children(data, s + 4 + (2 if version == 0 else 4), e):
            item_id, _, item_type = struct.unpack(">HH4s", data[es + 4:es + 12])
            self.items[item_id] = Item(item_id, item_type.decode(), hidden=bool(data[es + 3] & 1))
        self._read_iloc(data, *boxes["iloc"], idat)
        if "iref" in boxes:
            s, e = boxes["iref"]
            for kind, rs, re in children(data, s + 4, e):
                source, count = struct.unpack(">HH", data[rs:rs + 4])
                targets = list(struct.unpack(">%dH" % count, data[rs + 4:rs + 4 + 2 * count]))
                self.refs.append((kind, source, targets))
        s, e = next((s, e) for k, s, e in children(data, *boxes["iprp"]) if k == "ipco")
        properties = [data[ps - 8:pe] for _, ps, pe in children(data, s, e)]
        s, e = next((s, e) for k, s, e in children(data, *boxes["iprp"]) if k == "ipma")
        flags = data[s + 3]
        count = struct.unpack(">I", data[s + 4:s + 8])[0]
        offset = s + 8
        for _ in range(count):
            item_id = struct.unpack(">H", data[offset:offset + 2])[0]
            n = data[offset + 2]
            offset += 3
            for _ in range(n):
                if flags & 1:
                    value = struct.unpack(">H", data[offset:offset + 2])[0]
                    essential, index = value >> 15, value & 0x7FFF
                    offset += 2
                else:
                    essential, index = data[offset] >> 7, data[offset] & 0x7F
                    offset += 1
                self.items[item_id].properties.append((properties[index - 1], bool(essential)))

    def _read_iloc(self, data, s, e, idat):
        version = data[s]
        sizes = data[s + 4:s + 6]
        offset_size, length_size, base_size = sizes[0] >> 4, sizes[0] & 15, sizes[1] >> 4
        index_size = sizes[1] & 15 if version in (1, 2) else 0
        offset = s + 6
        count = read_uint(data, offset, 2 if version < 2 else 4)
        offset += 2 if version < 2 else 4
        for _ in range(count):
            item_id = read_uint(data, offset, 2 if version < 2 else 4)
            offset += 2 if version < 2 else 4
            method = 0
            if version in (1, 2):
                method = read_uint(data, offset, 2) & 15
                offset += 2
            offset += 2  # data reference index
            base = read_uint(data, offset, base_size)
            offset += base_size
            extents = read_uint(data, offset, 2)
            offset += 2
            payload = b""
            for _ in range(extents):
                offset += index_size
                start = base + read_uint(data, offset, offset_size)
                offset += offset_size
                length = read_uint(data, offset, length_size)
                offset += length_size
                source = idat if method == 1 else data
                payload += source[start:start + length]
            self.items[item_id].data = payload

    def new_id(self):
        return max(self.items) + 1

    def add_property(self, item_id, prop, essential=True):
        self.items[item_id].properties.append((prop, essential))

    def serialize(self, extra_boxes=b""):
        major, compatible = self.brands
        ftyp = box("ftyp", major.encode() + b"\0\0\0\0" + b"".join(b.encode() for b in compatible))
        items = sorted(self.items.values(), key=lambda item: item.id)
        hdlr = full_box("hdlr", 0, 0, b"\0\0\0\0pict" + b"\0" * 12 + b"\0")
        pitm = full_box("pitm", 0, 0, struct.pack(">H", self.primary))
        infe = b"".join(full_box("infe", 2, 1 if item.hidden else 0,
                                 struct.pack(">HH", item.id, 0) + item.kind.encode() + b"\0") for item in items)
        iinf = full_box("iinf", 0, 0, struct.pack(">H", len(items)) + infe)
        iref = full_box("iref", 0, 0, b"".join(
            box(kind, struct.pack(">HH", source, len(targets)) + b"".join(struct.pack(">H", t) for t in targets))
            for kind, source, targets in self.refs)) if self.refs else b""
        ipco_boxes, ipma_entries = [], []
        for item in items:
            indices = []
            for prop, essential in item.properties:
                ipco_boxes.append(prop)
                indices.append((len(ipco_boxes), essential))
            ipma_entries.append((item.id, indices))
        # Seven-bit property indices while they fit, else fifteen-bit ones (ipma flag 1).
        wide = len(ipco_boxes) > 127
        entries = b""
        for item_id, indices in ipma_entries:
            entries += struct.pack(">HB", item_id, len(indices))
            for index, essential in indices:
                entries += struct.pack(">H", (0x8000 if essential else 0) | index) if wide else \
                    bytes([(0x80 if essential else 0) | index])
        ipma = full_box("ipma", 0, 1 if wide else 0, struct.pack(">I", len(items)) + entries)
        iprp = box("iprp", box("ipco", b"".join(ipco_boxes)) + ipma)

        def iloc(mdat_start):
            entries, offset = b"", mdat_start
            for item in items:
                entries += struct.pack(">HHHHII", item.id, 0, 0, 1, offset, len(item.data))
                offset += len(item.data)
            return full_box("iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(items)) + entries)

        def meta(mdat_start):
            return full_box("meta", 0, 0, hdlr + pitm + iinf + iref + iprp + iloc(mdat_start))

        mdat_start = len(ftyp) + len(meta(0)) + 8
        mdat = box("mdat", b"".join(item.data for item in items))
        return ftyp + meta(mdat_start) + mdat + extra_boxes


def irot(quarter_turns):
    return box("irot", bytes([quarter_turns & 3]))


def imir(axis):
    return box("imir", bytes([axis & 1]))


def clap(width, height):
    return box("clap", struct.pack(">8I", width, 1, height, 1, 0, 1, 0, 1))


def nclx(primaries, transfer, matrix):
    """A 'colr' property of type 'nclx' (heif-enc 1.15 puts these code points only in the HEVC stream)."""
    return box("colr", b"nclx" + struct.pack(">HHHB", primaries, transfer, matrix, 0x80))


def exif_orientation(value):
    """An Exif item's payload: a zero offset to the TIFF header, then a big-endian TIFF with one tag."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, value, 0) + struct.pack(">I", 0)
    return struct.pack(">I", 0) + tiff


def png16(path, width, height, pixel):
    """Writes a 16-bit RGB PNG; pixel(x, y) gives three 16-bit values."""
    raw = b""
    for y in range(height):
        raw += b"\0" + b"".join(struct.pack(">3H", *pixel(x, y)) for x in range(width))

    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def picture(width, height, alpha=False):
    image = Image.new("RGBA" if alpha else "RGB", (width, height))
    px = image.load()
    for y in range(height):
        for x in range(width):
            colour = (x * 255 // max(1, width - 1), y * 255 // max(1, height - 1), 200 if (x // 8 + y // 8) % 2 else 40)
            px[x, y] = colour + ((x * 255 // max(1, width - 1)),) if alpha else colour
    # A dark corner marks the top left, so any turn or mirror shows in the pixels.
    for y in range(4):
        for x in range(6):
            px[x, y] = (0, 0, 0, 255) if alpha else (0, 0, 0)
    return image


def heif_enc(png, out, *args):
    subprocess.run(["heif-enc", "-q", "90", *args, png, "-o", out], check=True, capture_output=True)


def without_exif(png):
    """The PNG minus its eXIf chunk. heif-convert 1.15 copies the file's Exif, Orientation tag and all,
    into the PNG it writes although the pixels are already turned by irot; a PNG reader that honours
    eXIf (Kingfisher's does) would turn them a second time."""
    out, offset = png[:8], 8
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        if kind != b"eXIf":
            out += png[offset:offset + 12 + length]
        offset += 12 + length
    return out


def reference(name):
    path = os.path.join(HERE, name + ".heic")
    png = os.path.join(HERE, name + ".png")
    subprocess.run(["heif-convert", path, png], check=True, capture_output=True)
    with open(png, "rb") as file:
        data = file.read()
    with open(png, "wb") as file:
        file.write(without_exif(data))


def write(name, data):
    with open(os.path.join(HERE, name + ".heic"), "wb") as out:
        out.write(data)
    reference(name)


def main():
    work = tempfile.mkdtemp()
    src = os.path.join(work, "rgb8.png")
    picture(32, 24).save(src)
    for name, args, source in [("rgb8", [], src)]:
        heif_enc(source, os.path.join(HERE, name + ".heic"), *args)
        reference(name)

    src10 = os.path.join(work, "rgb10.png")
    png16(src10, 32, 24, lambda x, y: (x * 65535 // 31, y * 65535 // 23, 51400 if (x // 8 + y // 8) % 2 else 3000))
    heif_enc(src10, os.path.join(HERE, "rgb10.heic"), "-b", "10")
    reference("rgb10")

    srcmono = os.path.join(work, "mono.png")
    picture(32, 24).convert("L").save(srcmono)
    heif_enc(srcmono, os.path.join(HERE, "mono.heic"))
    reference("mono")
    heif_enc(src, os.path.join(HERE, "lossless444.heic"), "-L", "-p", "chroma=444", "--matrix_coefficients=0")
    reference("lossless444")

    srca = os.path.join(work, "alpha.png")
    picture(32, 24, alpha=True).save(srca)
    heif_enc(srca, os.path.join(HERE, "alpha.heic"))
    reference("alpha")

    srcp = os.path.join(work, "premul.png")
    premultiplied = picture(32, 24, alpha=True)
    px = premultiplied.load()
    for y in range(24):
        for x in range(32):
            r, g, b, a = px[x, y]
            px[x, y] = ((r * a + 127) // 255, (g * a + 127) // 255, (b * a + 127) // 255, a)
    premultiplied.save(srcp)
    heif_enc(srcp, os.path.join(HERE, "premul.heic"), "--premultiplied-alpha")
    reference("premul")
    # heif-convert writes the stored (premultiplied) values unchanged; kept raw, since a PNG
    # decoder would premultiply them again.
    with open(os.path.join(HERE, "premul.rgba"), "wb") as out:
        out.write(Image.open(os.path.join(HERE, "premul.png")).convert("RGBA").tobytes())
    os.remove(os.path.join(HERE, "premul.png"))

    srcicc = os.path.join(work, "icc.png")
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    picture(32, 24).save(srcicc, icc_profile=srgb)
    heif_enc(srcicc, os.path.join(HERE, "icc.heic"))
    reference("icc")

    heif = HEIF(open(os.path.join(HERE, "rgb8.heic"), "rb").read())
    heif.add_property(heif.primary, nclx(12, 13, 6), essential=False)
    write("nclx", heif.serialize())

    srcthumb = os.path.join(work, "thumb.png")
    picture(64, 48).save(srcthumb)
    heif_enc(srcthumb, os.path.join(HERE, "thumb.heic"), "-t", "16")
    reference("thumb")

    base = open(os.path.join(HERE, "rgb8.heic"), "rb").read()
    for name, props in [("rot90", [irot(1)]), ("mirror", [imir(1)]), ("rotmirror", [irot(3), imir(0)]),
                        ("cliprot", [clap(20, 14), irot(2)])]:
        heif = HEIF(base)
        for prop in props:
            heif.add_property(heif.primary, prop)
        write(name, heif.serialize())

    heif = HEIF(base)
    heif.add_property(heif.primary, irot(1))
    exif_id = heif.new_id()
    heif.items[exif_id] = Item(exif_id, "Exif", data=exif_orientation(6))
    heif.refs.append(("cdsc", exif_id, [heif.primary]))
    write("exifrot", heif.serialize())

    thumb = open(os.path.join(HERE, "thumb.heic"), "rb").read()
    heif = HEIF(thumb)
    heif.add_property(heif.primary, irot(1))
    write("thumbrot", heif.serialize())
    heif = HEIF(thumb)
    heif.add_property(heif.primary, irot(1))
    for kind, source, targets in heif.refs:
        if kind == "thmb":
            heif.add_property(source, irot(1))
    write("thumbrot2", heif.serialize())

    srcthumba = os.path.join(work, "thumbalpha.png")
    picture(64, 48, alpha=True).save(srcthumba)
    heif_enc(srcthumba, os.path.join(HERE, "thumbalpha.heic"), "-t", "16")
    heif_enc(srcthumba, os.path.join(HERE, "thumbnoalpha.heic"), "-t", "16", "--no-thumb-alpha")
    heif = HEIF(thumb)
    heif.add_property(heif.primary, nclx(12, 13, 6), essential=False)
    with open(os.path.join(HERE, "thumbp3.heic"), "wb") as out:
        out.write(heif.serialize())

    heif = HEIF(base)
    heif.brands = ("heic", ["mif1", "heic", "miaf", "msf1", "hevs"])
    write("stillseq", heif.serialize(extra_boxes=box("moov", b"")))

    write("grid", grid(work))


def grid(work):
    """Four 64x64 quadrants of a 128x128 picture, each coded by heif-enc, tiled by a 2x2 grid shown 120x100."""
    whole = picture(128, 128)
    tiles = []
    for index, (left, top) in enumerate([(0, 0), (64, 0), (0, 64), (64, 64)]):
        png = os.path.join(work, "tile%d.png" % index)
        out = os.path.join(work, "tile%d.heic" % index)
        whole.crop((left, top, left + 64, top + 64)).save(png)
        heif_enc(png, out)
        tile = HEIF(open(out, "rb").read())
        coded = [item for item in tile.items.values() if item.kind == "hvc1"]
        assert len(coded) == 1, "heif-enc wrote %d coded items for a 64x64 tile" % len(coded)
        tiles.append(coded[0])
    heif = HEIF(open(out, "rb").read())
    heif.items = {}
    heif.refs = []
    grid_id = 1
    heif.primary = grid_id
    # grid: version 0, flags 0 (16-bit sizes), rows-1, columns-1, output width, output height.
    heif.items[grid_id] = Item(grid_id, "grid", data=struct.pack(">BBBBHH", 0, 0, 1, 1, 120, 100),
                               properties=[(full_box("ispe", 0, 0, struct.pack(">II", 120, 100)), False)])
    for index, tile in enumerate(tiles):
        tile.id = 2 + index
        tile.hidden = True
        heif.items[tile.id] = tile
    heif.refs.append(("dimg", grid_id, [tile.id for tile in tiles]))
    return heif.serialize()


if __name__ == "__main__":
    main()
