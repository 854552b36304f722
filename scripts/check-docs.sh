#!/usr/bin/env bash
# Runs the documentation's terminal transcripts and compiles its package manifests, so what the
# docs show is what the tools do (DocSnippetTests checks the Swift snippets and the links).
#
#   bash scripts/check-docs.sh            check every ```console block of README.md and docs/*.md
#   bash scripts/check-docs.sh --show     also print each command's actual output
#
# A ```console block is a transcript: lines starting with "$ " are commands (a line ending in "\"
# continues on the next), the lines up to the next command are what it prints (standard output
# and standard error together). Each block runs in one bash session of its own (without the caller's
# KF_SERVE_*, IMGPROXY_*, THUMBOR_*, AWS_* and XDG_* variables): a fresh home
# folder (HOME=/home/me as the output shows it; the kf cache lives there), a working folder
# /home/me/kingfisher-linux holding a copy of Samples/, scripts/ and deploy/ (a checkout's root
# as far as the transcripts go), the debug `kf` that `swift build` made first on PATH and in
# KF_BIN (so scripts/fleet.sh runs it), KF_FLEET_DIR in the block's own folder (shown as
# /tmp/kf-fleet), and, where the system allows it (unshare), a network namespace of its own with
# only a loopback interface: no command reaches the internet and no port is taken by anything
# else (CHECK_DOCS_NETNS=0 turns the namespaces off), and moto's server (scripts/moto-venv.sh) last on
# PATH for the S3 transcript. Background jobs a block starts are killed
# when it ends; a block has 20 s to finish.
#
# A block fenced as ```console root runs as root (not in a user namespace), for commands that only
# root can run, such as a fleet of replicas in network namespaces behind nginx (scripts/fleet.sh):
# in network, mount and PID namespaces of its own, with a private /run/netns, so its bridges,
# namespaces, ports and processes are its own and end with it (every process it started, in the
# background or not, is killed when the block ends or times out). It needs check-docs to run as
# root, with unshare, ip, nginx, curl and python3; where one is missing the block fails, saying
# what is missing, unless CHECK_DOCS_ROOT=0 skips such blocks (each skip is reported).
#
# Output is compared by shape: each shown line is a pattern in which a run of digits matches any
# number (digits, perhaps with a decimal part) matches any number, a word of 20 or more letters,
# digits, "-" and "_" that holds a digit (or of 32 or more in mixed case) matches any such word of
# the same length (hashes, signatures, base64), a run of spaces any run of spaces,
# and "…" any text; a line holding only "…" matches any number of lines. A command that shows no
# output must print nothing and succeed. ```swift blocks that start with "// swift-tools-version:"
# are package manifests: each is compiled with `swift package dump-package`.
# Ends with "check-docs: N transcripts (C commands), M manifests: passed|FAILED"; exit 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bin="$(swift build --show-bin-path)"
if [ ! -x "$bin/kf" ]; then
    echo "check-docs: $bin/kf is not built: run swift build --build-tests first" >&2
    exit 1
fi
exec python3 - "$bin" "$@" <<'PY'
import glob, os, re, shutil, subprocess, sys, tempfile, time

bin_dir, show = sys.argv[1], "--show" in sys.argv[2:]
# moto_server, for the S3 transcript: the venv scripts/moto-venv.sh makes, last on PATH.
moto_bin = os.path.join(os.environ.get("KF_MOTO_VENV") or os.path.expanduser("~/.cache/kf-moto/venv"), "bin")
started = time.monotonic()
files = ["README.md"] + sorted(glob.glob("docs/*.md"))


def blocks(path):
    """Yields (line, language, attributes, lines) for each fenced block of a markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("```"):
            indent = len(lines[i]) - len(lines[i].lstrip(" "))
            language, *attributes = stripped[3:].split() or [""]
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                line = lines[i]
                body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
                i += 1
            yield start, language, attributes, body
        i += 1


def steps(path, line, body):
    """The commands of a transcript, each with the output lines shown after it."""
    result, current = [], None
    k = 0
    while k < len(body):
        text = body[k]
        if text.startswith("$ "):
            command = text[2:]
            number = line + 1 + k
            while command.endswith("\\") and k + 1 < len(body):
                k += 1
                command += "\n" + body[k]
            current = {"command": command, "line": number, "shown": []}
            result.append(current)
        elif current is None:
            if text.strip():
                raise SystemExit(f"check-docs: {path}:{line + 1 + k}: a transcript must start with a '$ ' command")
        else:
            current["shown"].append(text.rstrip())
        k += 1
    for step in result:
        while step["shown"] and not step["shown"][-1]:
            step["shown"].pop()
    return result


TOKEN = re.compile(r"(…)|( +)|([A-Za-z0-9_\-]{20,})|([0-9]+(?:\.[0-9]+)?)|(.)")


def pattern(shown):
    """The regular expression a shown output line stands for."""
    parts = []
    for ellipsis, spaces, word, digits, other in TOKEN.findall(shown.strip()):
        if ellipsis:
            parts.append(".*")
        elif spaces:
            parts.append(" +")
        elif word:
            if re.search(r"[0-9]", word) or (len(word) >= 32 and re.search(r"[a-z]", word) and re.search(r"[A-Z]", word)):
                parts.append("[A-Za-z0-9_\\-]{%d}" % len(word))
            else:
                parts.append(re.sub(r"[0-9]+", "[0-9]+", re.escape(word)))
        elif digits:
            parts.append(r"[0-9]+(?:\.[0-9]+)?")
        else:
            parts.append(re.escape(other))
    return re.compile(" *" + "".join(parts) + " *$")


def matches(shown, actual):
    """Whether the actual lines have the shape of the shown ones ("…" alone takes any lines)."""
    if not shown:
        return not actual
    if shown[0].strip() == "…":
        return any(matches(shown[1:], actual[n:]) for n in range(len(actual) + 1))
    return bool(actual) and pattern(shown[0]).match(actual[0]) is not None and matches(shown[1:], actual[1:])


def isolation():
    """A command prefix giving each transcript its own network namespace, when the system allows it."""
    probe = ["unshare", "-rn", "sh", "-c", "ip link set lo up"]
    if os.environ.get("CHECK_DOCS_NETNS") == "0":
        print("check-docs: CHECK_DOCS_NETNS=0: transcripts use this machine's loopback", file=sys.stderr)
        return ["bash"]
    try:
        if shutil.which("unshare") and shutil.which("ip") and subprocess.run(probe, capture_output=True, timeout=10).returncode == 0:
            return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec bash "$0"']
    except (OSError, subprocess.TimeoutExpired):
        pass
    print("check-docs: no private network namespace (unshare -rn refused): transcripts use this machine's loopback", file=sys.stderr)
    return ["bash"]


ROOT_SETUP = "ip link set lo up && mkdir -p /run/netns && mount -t tmpfs -o mode=755 tmpfs /run/netns"


def root_isolation():
    """The command prefix of a ```console root block, or None and why such blocks cannot run here."""
    if os.environ.get("CHECK_DOCS_ROOT") == "0":
        return None, "CHECK_DOCS_ROOT=0"
    if os.geteuid() != 0:
        return None, "check-docs does not run as root"
    try:
        # Root of a user namespace (a rootless container) cannot give nginx's workers their user.
        mapped = [line.split() for line in open("/proc/self/uid_map")]
        if not any(row[:2] == ["0", "0"] and int(row[2]) > 65534 for row in mapped):
            return None, "check-docs runs as root of a user namespace, not of the machine"
    except (OSError, ValueError, IndexError):
        pass
    missing = [tool for tool in ("unshare", "ip", "curl", "python3") if not shutil.which(tool)]
    if not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        missing.append("nginx (bash scripts/install-deps.sh nginx)")
    if missing:
        return None, "not installed: " + ", ".join(missing)
    # Network, mount and PID namespaces: the block's fleet, its bridge and its named namespaces
    # (in a /run/netns of its own) are invisible to the machine, and when bash, process 1 of the
    # PID namespace, ends (or unshare is killed on a timeout), the kernel kills everything left.
    unshare = ["unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c"]
    probe = f"{ROOT_SETUP} && ip netns add check-docs-probe && ip link add check-docs0 type bridge"
    try:
        done = subprocess.run(unshare + [probe], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"namespaces refused ({error})"
    if done.returncode != 0:
        return None, "namespaces refused: " + (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[0]
    return unshare + [f'{ROOT_SETUP} && exec bash "$0"'], None


def run(path, line, block_steps, prefix, as_root=False):
    """Runs one transcript; returns the failure messages."""
    sandbox = tempfile.mkdtemp(prefix="check-docs-")
    try:
        home = os.path.join(sandbox, "home", "me")
        work = os.path.join(home, "kingfisher-linux")
        os.makedirs(work)
        os.makedirs(os.path.join(sandbox, "tmp"))
        if as_root:
            # nginx's workers run as an unprivileged user: they must reach the fleet's folder.
            for folder in (sandbox, os.path.join(sandbox, "tmp")):
                os.chmod(folder, 0o755)
        for folder in ("Samples", "scripts", "deploy"):
            shutil.copytree(folder, os.path.join(work, folder))
        script = ["exec 2>&1 </dev/null", f"cd {work!r}"]
        for n, step in enumerate(block_steps):
            script += [f"printf '\\036step {n}\\n'", step["command"], f"printf '\\036status %d\\n' $?"]
        script += ["printf '\\036end\\n'", "kill -KILL $(jobs -p) 2>/dev/null", "wait 2>/dev/null", "true"]
        with open(os.path.join(sandbox, "transcript.sh"), "w") as handle:
            handle.write("\n".join(script) + "\n")
        env = {k: v for k, v in os.environ.items()
               if not re.match(r"(XDG_|KF_SERVE_|THUMBOR_|IMGPROXY_|KF_FLEET_|AWS_)", k)}
        env.update(HOME=home, PATH=bin_dir + os.pathsep + env.get("PATH", "") + os.pathsep + moto_bin, LC_ALL="C.UTF-8", TERM="dumb",
                   KF_BIN=os.path.join(bin_dir, "kf"), KF_FLEET_DIR=os.path.join(sandbox, "tmp", "kf-fleet"))
        began = time.monotonic()
        try:
            out = subprocess.run(prefix + [os.path.join(sandbox, "transcript.sh")], env=env, cwd=work,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20).stdout
        except subprocess.TimeoutExpired as timeout:
            out = (timeout.stdout or b"") + b"\n\x1etimeout\n"
        text = out.decode("utf-8", "replace").replace(sandbox, "")
        if show:
            print(f"-- {path}:{line}: ran in {time.monotonic() - began:.1f} s")
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    outputs, statuses, current = {}, {}, None
    for raw in text.split("\n"):
        if raw.startswith("\x1estep "):
            current = int(raw.split()[1])
            outputs[current] = []
        elif raw.startswith("\x1estatus "):
            statuses[current] = int(raw.split()[1])
        elif raw.startswith("\x1e"):
            current = None
        elif current is not None:
            outputs[current].append(raw.rstrip())
    failures = []
    for n, step in enumerate(block_steps):
        actual = outputs.get(n)
        while actual and not actual[-1]:
            actual.pop()
        where = f"{path}:{step['line']}: $ {step['command'].splitlines()[0]}"
        if show:
            print(f"== {where}\n" + ("\n".join(actual) if actual else "(no output)" if actual is not None else "(did not run)"))
        if actual is None or n not in statuses:
            failures.append(f"{where}\n   did not finish (a command before it hung or the transcript took over 20 s)")
            break
        if not step["shown"] and statuses[n] != 0:
            failures.append(f"{where}\n   exited with {statuses[n]} and shows no output:\n" + "\n".join("   | " + a for a in actual))
        elif not matches(step["shown"], actual):
            failures.append(f"{where}\n   shown:\n" + "\n".join("   | " + s for s in step["shown"]) +
                            "\n   printed:\n" + "\n".join("   | " + a for a in actual))
    return failures


def check_manifest(path, line, body):
    """Compiles a package manifest block; returns the failure messages."""
    sandbox = tempfile.mkdtemp(prefix="check-docs-manifest-")
    try:
        with open(os.path.join(sandbox, "Package.swift"), "w") as handle:
            handle.write("\n".join(body) + "\n")
        done = subprocess.run(["swift", "package", "dump-package", "--package-path", sandbox],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            return [f"{path}:{line}: the manifest does not compile:\n{done.stderr}"]
        return []
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


prefix = isolation()
root_prefix, root_refusal = None, None
failures, skipped, transcripts, commands, manifests = [], [], 0, 0, 0
for path in files:
    for line, language, attributes, body in blocks(path):
        if language == "console":
            block_steps = steps(path, line, body)
            if "root" in attributes:
                if root_prefix is None and root_refusal is None:
                    root_prefix, root_refusal = root_isolation()
                if root_refusal == "CHECK_DOCS_ROOT=0":
                    skipped.append(f"{path}:{line}")
                    continue
                if root_refusal:
                    failures.append(f"{path}:{line}: this transcript runs as root in namespaces of its own, which "
                                    f"cannot be done here: {root_refusal}; run check-docs as root (as CI does), or "
                                    "set CHECK_DOCS_ROOT=0 to skip such transcripts")
                    continue
            transcripts += 1
            commands += len(block_steps)
            failures += run(path, line, block_steps, root_prefix if "root" in attributes else prefix, "root" in attributes)
        elif language == "swift" and body and body[0].startswith("// swift-tools-version:"):
            manifests += 1
            failures += check_manifest(path, line, body)
for place in skipped:
    print(f"check-docs: SKIPPED {place}: a transcript run as root (CHECK_DOCS_ROOT=0)", file=sys.stderr)
for failure in failures:
    print("check-docs: " + failure, file=sys.stderr)
verdict = "FAILED" if failures else "passed"
also = f", {len(skipped)} SKIPPED (CHECK_DOCS_ROOT=0)" if skipped else ""
print(f"check-docs: {transcripts} transcripts ({commands} commands){also}, {manifests} manifests in {len(files)} files "
      f"in {time.monotonic() - started:.1f} s: {verdict}")
sys.exit(1 if failures else 0)
PY
