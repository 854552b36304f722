#!/usr/bin/env python3
"""Source images for scripts/check-thumbor.sh and scripts/bench-serve.sh, made with Pillow.

    serve_images.py conformance DIR     photo-like JPEGs of several aspect ratios (landscape
                                        1600x1067, portrait 1067x1600, square 1200x1200,
                                        panorama 2400x800, small 400x300), a PNG with alpha and
                                        an animated GIF; prints one file name a line. Also writes,
                                        without printing them, framed.png (a photo on a white
                                        border, for trim) and wm.png (a watermark with soft,
                                        partly transparent edges)
    serve_images.py photos DIR N        N photo-like 2040-px-wide JPEGs at quality 90 (the size of
                                        DIV2K's photos, imgproxy's benchmark set), photo-NNN.jpg
    serve_images.py photos-FMT DIR N    the same N photos stored as FMT: png (Pillow's default
                                        compression), webp (quality 90) or avif (Pillow's
                                        default quality and speed), photo-NNN.FMT
    serve_images.py hd DIR N            N 1920x1080 JPEGs of gradients and seeded noise at quality
                                        85, img-NNN.jpg (bench-serve.sh's 1080p set)

The content is smooth shapes and gradients with a little fine grain, seeded, so two runs make
the same files. It has edges and texture enough to tell a shifted or mirrored crop apart, and no
pixel-level noise that two correct resamplers would render differently.
"""
import random
import sys

from PIL import Image, ImageDraw, ImageFilter


def photo(width, height, seed, grain=6):
    """A photo-like RGB image: gradients, blurred ellipses and bars, soft grain."""
    rng = random.Random(seed)
    horizontal = Image.linear_gradient("L").rotate(90).resize((width, height))
    vertical = Image.linear_gradient("L").resize((width, height))
    radial = Image.radial_gradient("L").resize((width, height))
    image = Image.merge("RGB", (horizontal, vertical, radial))
    draw = ImageDraw.Draw(image)
    for _ in range(14):
        x, y = rng.randrange(width), rng.randrange(height)
        rx, ry = rng.randint(width // 30, width // 6), rng.randint(height // 30, height // 6)
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.ellipse((x - rx, y - ry, x + rx, y + ry), fill=colour)
    for _ in range(6):
        x = rng.randrange(width)
        draw.rectangle((x, 0, x + width // 80, height), fill=tuple(rng.randrange(256) for _ in range(3)))
    # A marker in the top-left quarter so a flip or a crop on the wrong side shows in the PSNR.
    draw.rectangle((width // 10, height // 10, width // 4, height // 4), fill=(250, 250, 20))
    image = image.filter(ImageFilter.GaussianBlur(max(width, height) / 800))
    if grain:
        noise = Image.effect_noise((width, height), grain * 4).filter(ImageFilter.GaussianBlur(1))
        image = Image.blend(image, Image.merge("RGB", (noise, noise, noise)), grain / 100)
    return image


def conformance(folder):
    names = []
    for name, size, seed in (("landscape", (1600, 1067), 1), ("portrait", (1067, 1600), 2),
                             ("square", (1200, 1200), 3), ("panorama", (2400, 800), 4),
                             ("small", (400, 300), 5)):
        photo(*size, seed).save(f"{folder}/{name}.jpg", quality=92)
        names.append(f"{name}.jpg")
    # A PNG with an alpha gradient and a fully transparent hole.
    base = photo(640, 480, 6).convert("RGBA")
    alpha = Image.linear_gradient("L").rotate(90).resize((640, 480)).point(lambda v: 64 + v * 3 // 4)
    ImageDraw.Draw(alpha).ellipse((240, 160, 400, 320), fill=0)
    base.putalpha(alpha)
    base.save(f"{folder}/alpha.png")
    names.append("alpha.png")
    # An animated GIF: 4 frames of a moving disc over a gradient, 100 ms each.
    frames = []
    background = photo(240, 160, 7, grain=0)
    for index in range(4):
        frame = background.copy()
        ImageDraw.Draw(frame).ellipse((20 + index * 50, 50, 80 + index * 50, 110), fill=(220, 30, 30))
        frames.append(frame.quantize(64))
    frames[0].save(f"{folder}/anim.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    names.append("anim.gif")
    # A 300x200 photo with borders of pure white (37 px left, 63 right, 41 top, 59 bottom).
    framed = Image.new("RGB", (400, 300), (255, 255, 255))
    framed.paste(photo(300, 200, 8, grain=0), (37, 41))
    framed.save(f"{folder}/framed.png")
    # A 120x60 watermark: a dark red rounded bar with a white stripe, transparent around it, drawn
    # at 4x and reduced so its edges are partly transparent (where thumbor's alpha arithmetic shows).
    mark = Image.new("RGBA", (480, 240), (0, 0, 0, 0))
    draw = ImageDraw.Draw(mark)
    draw.rounded_rectangle((16, 32, 463, 207), radius=48, fill=(150, 20, 30, 255))
    draw.rectangle((80, 104, 399, 135), fill=(255, 255, 255, 255))
    mark.resize((120, 60), Image.Resampling.LANCZOS).save(f"{folder}/wm.png")
    print("\n".join(names))


# How each format of the photo set is written: (extension, Pillow save arguments).
PHOTO_FORMATS = {
    "jpeg": ("jpg", {"quality": 90}),
    "png": ("png", {}),
    "webp": ("webp", {"quality": 90}),
    "avif": ("avif", {}),
}


def photos(folder, count, kind="jpeg"):
    extension, arguments = PHOTO_FORMATS[kind]
    for index in range(count):
        height = 1356 if index % 3 else 1536
        photo(2040, height, 100 + index, grain=25).save(f"{folder}/photo-{index:03d}.{extension}", **arguments)


def hd(folder, count):
    base = Image.linear_gradient("L").resize((1920, 1080))
    for index in range(count):
        rng = random.Random(index)
        red = base.point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
        green = base.transpose(Image.Transpose.FLIP_LEFT_RIGHT).point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
        blue = Image.effect_noise((1920, 1080), 30 + index % 20).filter(ImageFilter.GaussianBlur(2))
        Image.merge("RGB", (red, green, blue)).save(f"{folder}/img-{index:03d}.jpg", quality=85)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "conformance":
        conformance(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "photos":
        photos(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1].startswith("photos-") and sys.argv[1][7:] in PHOTO_FORMATS:
        photos(sys.argv[2], int(sys.argv[3]), sys.argv[1][7:])
    elif len(sys.argv) == 4 and sys.argv[1] == "hd":
        hd(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
