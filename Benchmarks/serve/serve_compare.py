"""Fetching and comparing images for the serve conformance checks (thumbor_conformance.py,
imgproxy_conformance.py): GET with status and body, decode with Pillow, PSNR after flattening
onto white."""
import io
import math
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from PIL import Image, ImageChops


def fetch(url, headers=None, timeout=60):
    """(status, body, headers) of a GET; a connection failure is status 0 with the reason as body."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)
    except (urllib.error.URLError, OSError) as error:
        return 0, str(error).encode(), {}


def fetch_all(urls, workers=4):
    """fetch() of every URL, in order, `workers` at a time."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fetch, urls))


# The luminance quantisation table of the JPEG standard (Annex K), row by row as Pillow reports
# tables; libjpeg scales it by the quality.
STANDARD_LUMINANCE = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]


def jpeg_quality(image):
    """The libjpeg quality (1...100) whose scaled standard table is nearest the image's luminance
    table, or None when there is none."""
    tables = getattr(image, "quantization", None)
    if not tables or 0 not in tables:
        return None
    table = list(tables[0])

    def distance(quality):
        scale = 5000 / quality if quality < 50 else 200 - 2 * quality
        scaled = [min(255, max(1, int((value * scale + 50) // 100))) for value in STANDARD_LUMINANCE]
        return sum(abs(a - b) for a, b in zip(scaled, table))

    return min(range(1, 101), key=distance)


class Decoded:
    """What a response body decodes to: format, size, frame count, JPEG quality and the first
    frame on white."""

    def __init__(self, body):
        image = Image.open(io.BytesIO(body))
        self.format = image.format
        self.quality = jpeg_quality(image) if image.format == "JPEG" else None
        self.size = image.size
        self.frames = getattr(image, "n_frames", 1)
        image.seek(0)
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        self.rgb = Image.alpha_composite(white, rgba).convert("RGB")


def decode(body):
    """A Decoded, or the reason the body is not an image."""
    try:
        return Decoded(body)
    except Exception as error:  # Pillow raises many types for a bad body
        return f"undecodable ({error.__class__.__name__}: {str(error)[:80]})"


def psnr(a, b):
    """PSNR in dB of two RGB images of one size (inf when identical)."""
    histogram = ImageChops.difference(a, b).histogram()
    squares = sum(count * (index % 256) ** 2 for index, count in enumerate(histogram))
    mse = squares / (a.size[0] * a.size[1] * 3)
    return math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)


def short(body, limit=100):
    """The start of an error body, on one line."""
    return body[:limit].decode("utf-8", "replace").replace("\n", " ").strip()
