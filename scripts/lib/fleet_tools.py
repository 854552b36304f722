"""The pieces scripts/check-fleet.sh needs that are easier in Python than in the shell.

  fleet_tools.py origin DIR HOST             serves 60 photos from DIR (made once, seeded) on HOST and a
                                             free port (printed), counting GETs per path (/__counts)
  fleet_tools.py urls ORIGIN PHASE [SIZE...] request paths for every source at the phase's sizes
  fleet_tools.py warm BASE FILE              requests FILE's paths, each source's one after another
  fleet_tools.py served-by LOG FILE ADDRESS  the paths of FILE that nginx's LOG shows ADDRESS (-: any) answered
  fleet_tools.py ratios LOG ADDRESS...       nginx's and each replica's cache hit ratio
"""
import base64
import concurrent.futures
import http.server
import json
import random
import re
import sys
import threading
import urllib.request

SOURCES = 60
# Each loaded phase asks for 200 sizes of every source (12,000 URLs), so that its requests reach
# the replicas instead of nginx's cache.
PHASE_SIZES = {"kill": 200, "rolling": 400, "lost": 600, "capacity": 800}
PHASE_LENGTH = 200


def origin(folder, host):
    import os
    from PIL import Image, ImageDraw, ImageFilter
    os.makedirs(folder, exist_ok=True)
    for index in range(SOURCES):
        path = f"{folder}/p{index:02d}.jpg"
        if os.path.exists(path):
            continue
        rng = random.Random(index)
        image = Image.new("RGB", (1600, 1067), tuple(rng.randrange(256) for _ in range(3)))
        draw = ImageDraw.Draw(image)
        for _ in range(40):
            x, y = rng.randrange(1600), rng.randrange(1067)
            draw.ellipse((x, y, x + rng.randrange(40, 400), y + rng.randrange(40, 300)),
                         fill=tuple(rng.randrange(256) for _ in range(3)))
        image = image.filter(ImageFilter.GaussianBlur(3))
        noise = Image.effect_noise((1600, 1067), 24).convert("RGB")
        Image.blend(image, noise, 0.15).save(path, quality=88)
    counts = {}
    lock = threading.Lock()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=folder, **kwargs)

        def do_GET(self):
            if self.path == "/__counts":
                with lock:
                    body = json.dumps(counts).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            with lock:
                counts[self.path] = counts.get(self.path, 0) + 1
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def paths(origin_address, sizes):
    """Sources 0-29 through thumbor's grammar, 30-49 kf's own, 50-59 imgproxy's."""
    for size in sizes:
        for index in range(SOURCES):
            photo = f"{origin_address}/p{index:02d}.jpg"
            if index < 30:
                yield f"/thumbor/unsafe/fit-in/{size}x{size}/{photo}"
            elif index < 50:
                source = base64.urlsafe_b64encode(f"http://{photo}".encode()).decode().rstrip("=")
                yield f"/unsafe/jpeg/downsample({size}x{size})/{source}"
            else:
                yield f"/imgproxy/unsafe/rs:fit:{size}:{size}/plain/http://{photo}@jpg"


def photo_of(path):
    """The photo a path names: in its text, or in its base64 source segment (kf's grammar)."""
    match = re.search(r"p\d\d\.jpg", path)
    if match:
        return match.group(0)
    return base64.urlsafe_b64decode(path.rsplit("/", 1)[1] + "==").decode().rsplit("/", 1)[1]


def warm(base, file):
    lines = [line.strip() for line in open(file) if line.strip()]
    groups = {}
    for line in lines:
        groups.setdefault(photo_of(line), []).append(line)
    failures = []

    def run(group):
        for path in group:
            with urllib.request.urlopen(base + path, timeout=60) as response:
                body = response.read()
                length = int(response.headers.get("Content-Length", len(body)))
                if response.status != 200 or len(body) != length:
                    failures.append(f"{path}: {response.status}, {len(body)} of {length} bytes")

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        for future in [pool.submit(run, group) for group in groups.values()]:
            try:
                future.result()
            except Exception as error:  # a refused or failed request is a failure to report
                failures.append(str(error))
    print(f"{'warm-up requests':<44} requests {len(lines):>6}   failed {len(failures)}   "
          f"{'ok' if not failures else 'FAILED'}")
    for failure in failures[:5]:
        print("  " + failure)
    sys.exit(1 if failures else 0)


LINE = re.compile(r'"GET (\S+) [^"]*" (\d+) \d+ cache=(\S+) upstream=(.*?) upstream_status=')


def served_by(log, file, address):
    wanted = {line.strip() for line in open(file) if line.strip()}
    seen = set()
    for line in open(log):
        match = LINE.search(line)
        if match and match.group(1) in wanted and match.group(2) == "200" \
                and address in ("-", match.group(4).split(", ")[-1]) and match.group(1) not in seen:
            seen.add(match.group(1))
            print(match.group(1))


def ratios(log, addresses):
    statuses = {}
    for line in open(log):
        match = LINE.search(line)
        if match and not match.group(1).startswith("/health"):
            statuses[match.group(3)] = statuses.get(match.group(3), 0) + 1
    total = sum(statuses.values())
    hits = statuses.get("HIT", 0) + statuses.get("STALE", 0) + statuses.get("UPDATING", 0)
    detail = ", ".join(f"{name} {count}" for name, count in sorted(statuses.items()))
    print(f"nginx cache: {hits} of {total} requests answered from it ({100 * hits / max(1, total):.1f}%): {detail}")
    tiers_total = {}
    for address in addresses:
        text = urllib.request.urlopen(f"http://{address}/metrics", timeout=10).read().decode()
        tiers = {}
        for match in re.finditer(r'^kf_serve_cache_total\{[^}]*tier="(\w+)"[^}]*\} (\d+)', text, re.M):
            tiers[match.group(1)] = tiers.get(match.group(1), 0) + int(match.group(2))
        for tier, count in tiers.items():
            tiers_total[tier] = tiers_total.get(tier, 0) + count
        print(f"replica {address}: " + describe(tiers))
    print("replicas together: " + describe(tiers_total))


def describe(tiers):
    total = sum(tiers.values())
    cached = tiers.get("memory", 0) + tiers.get("disk", 0) + tiers.get("shared", 0)
    original = tiers.get("original", 0)
    return (f"{cached} of {total} renditions from their caches ({100 * cached / max(1, total):.1f}%), "
            f"{original} made from a kept original, {tiers.get('origin', 0)} fetched from the origin "
            f"({', '.join(f'{k} {v}' for k, v in sorted(tiers.items()))})")


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "origin":
        origin(*arguments)
    elif command == "urls":
        origin_address, phase, sizes = arguments[0], arguments[1], [int(s) for s in arguments[2:]]
        base = PHASE_SIZES.get(phase, 500)
        print("\n".join(paths(origin_address, sizes or range(base, base + PHASE_LENGTH))))
    elif command == "warm":
        warm(*arguments)
    elif command == "served-by":
        served_by(*arguments)
    elif command == "ratios":
        ratios(arguments[0], arguments[1:])
    else:
        sys.exit(__doc__)
