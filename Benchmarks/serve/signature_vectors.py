#!/usr/bin/env python3
"""The published thumbor and imgproxy signature vectors, checked by calling `kf serve`.

    signature_vectors.py KF_BIN

For each key (and salt) of the vectors this starts `kf serve --port 0` with that grammar at the
root and the key, allowing the vectors' source hosts (none of which resolves here, so no request
leaves the machine), and GETs each vector three times: as published, with one character of the
signature changed, and with one character of the signed path changed. A vector passes when both
altered forms are refused with the grammar's signature status (thumbor 400, imgproxy 403, kf may
answer 401 or 403 as well) and the published form is answered with another status (the source
cannot be fetched, so 404/422/502/504, not a signature refusal). The vectors come from
libthumbor's tests, thumbor's docs, imgproxy's docs and examples (the truncated one with
IMGPROXY_SIGNATURE_SIZE=8), and klen/imgproxy's tests.
Prints one line per vector and `signature-vectors: vectors=N passed=N failures=F`.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import fetch, short  # noqa: E402

IMGPROXY_DOCS = ("736563726574", "68656c6c6f")  # "secret" / "hello"
IMGPROXY_EXAMPLES = ("943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                     "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
KLEN_TESTS = ("aa396160c50ea766910eab53", "b3fb8f215827bda5d0e7313d")

VECTORS = [
    ("thumbor", ("my-security-key",),
     "/8ammJH8D-7tXy6kU3lTvoXlhu4o=/300x200/my.server.com/some/path/to/image.jpg"),
    ("thumbor", ("my-security-key",),
     "/as8U2DbUUtTMgvPF26LkjS3MocY=/10x10:200x200/300x200/filters:brightness(20):contrast(10)"
     "/my.server.com/some/path/to/image.jpg"),
    ("thumbor", ("MY_SECURE_KEY",), "/3ZAFIB9OK_j_R10MafCdhFO99mE=/300x200/smart/path/to/image.jpg"),
    ("imgproxy", IMGPROXY_DOCS,
     "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl"
     "/cy9jdXJpb3NpdHku/anBn.png"),
    ("imgproxy", IMGPROXY_EXAMPLES,
     "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"),
    ("imgproxy", KLEN_TESTS,
     "/Da25ef1zWhx4P9hhPWGdFRU8_dYcGvloGHvEZ1c3_0o/g:ce/rs:auto:0:0:0/aHR0cHM6Ly9waWNzdW0ucGhvdG9zLzEwMDA"),
    # imgproxy's examples/signature-truncated: the same digest cut to 8 bytes (IMGPROXY_SIGNATURE_SIZE=8).
    ("imgproxy", IMGPROXY_EXAMPLES + ("8",),
     "/m3k5QADfcKM/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"),
]
HOSTS = ["my.server.com", "path", "example.com", "img.example.com", "picsum.photos"]
SIGNATURE_STATUSES = {400, 401, 403}


def start(kf, grammar, secret):
    """A `kf serve` with `grammar` at the root signed by `secret` (key, and for imgproxy salt and
    optionally IMGPROXY_SIGNATURE_SIZE); (process, base URL)."""
    arguments = [kf, "serve", "--port", "0", "--upstream-timeout", "3", "--log-level", "error", f"--{grammar}", "/"]
    if grammar == "thumbor":
        arguments += ["--thumbor-key", secret[0]]
    else:
        arguments += ["--imgproxy-key", secret[0], "--imgproxy-salt", secret[1]]
    for host in HOSTS:
        arguments += ["--allow-host", host]
    environment = dict(os.environ)
    if len(secret) > 2:
        environment["IMGPROXY_SIGNATURE_SIZE"] = secret[2]
    errors = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=errors, text=True, env=environment)
    line = process.stdout.readline()
    if "listening on " not in line:
        process.kill()
        process.wait()
        errors.seek(0)
        message = errors.read().strip().replace("\n", " ")
        return None, f"kf serve did not start: {message[:300]}"
    return process, line.split("listening on ", 1)[1].strip()


def altered(path, index):
    """`path` with the character at `index` replaced by another of the same alphabet."""
    character = path[index]
    return path[:index] + ("B" if character == "A" else "A") + path[index + 1:]


def main():
    kf = sys.argv[1]
    servers = {}
    passed = failures = 0
    try:
        for grammar, secret, path in VECTORS:
            if (grammar, secret) not in servers:
                servers[(grammar, secret)] = start(kf, grammar, secret)
            process, base = servers[(grammar, secret)]
            if process is None:
                failures += 1
                print(f"FAIL {grammar} {path}: {base}")
                continue
            signature_end = path.index("/", 1)
            published = fetch(base + path, timeout=30)
            bad_signature = fetch(base + altered(path, 3), timeout=30)
            bad_path = fetch(base + altered(path, len(path) - 6), timeout=30)
            ok = (bad_signature[0] in SIGNATURE_STATUSES and bad_path[0] in SIGNATURE_STATUSES
                  and published[0] not in SIGNATURE_STATUSES and published[0] != 0)
            verdict = "ok  " if ok else "FAIL"
            passed += ok
            failures += not ok
            print(f"{verdict} {grammar} {path[:signature_end]}…: published {published[0]} ({short(published[1], 60)}); "
                  f"signature altered {bad_signature[0]}; path altered {bad_path[0]} ({short(bad_path[1], 60)})")
    finally:
        for process, _ in servers.values():
            if process is not None:
                process.terminate()
                process.wait(timeout=10)
    print(f"signature-vectors: vectors={len(VECTORS)} passed={passed} failures={failures}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
