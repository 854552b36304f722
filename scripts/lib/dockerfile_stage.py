"""Reads the last stage of a Dockerfile and prints it as bash assignments, for check-container.sh.

    python3 scripts/lib/dockerfile_stage.py deploy/container/Dockerfile

Prints `base`, `packages` (the names an `apt-get install` RUN installs), `runs` (every other RUN,
as the shell text Docker would give /bin/sh -c), `copies` (SOURCE=DESTINATION of each COPY),
`environment` (NAME=VALUE of each ENV), `user`, `volumes`, `ports`, `healthcheck` (the shell text
after CMD), `stop_signal`, `entrypoint` and `command`. Only what that Dockerfile uses is read: an
instruction this reader does not know makes it fail rather than be skipped.
"""

import json
import shlex
import sys


def instructions(text):
    """The instructions of a Dockerfile, continuation lines joined and comments dropped."""
    joined, current = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not current):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        word, _, rest = current.partition(" ")
        joined.append((word.upper(), rest.strip()))
        current = ""
    return joined


def exec_form(text):
    """A JSON array (exec form) as a list; shell form as `/bin/sh -c TEXT`."""
    if text.startswith("["):
        return json.loads(text)
    return ["/bin/sh", "-c", text]


def installed_packages(run):
    """The package names of `apt-get install` in a RUN, options left out, up to the next `&&`."""
    words = shlex.split(run)
    start = words.index("install", words.index("apt-get")) + 1
    names = []
    for word in words[start:]:
        if word in ("&&", ";", "||"):
            break
        if not word.startswith("-"):
            names.append(word)
    return names


def main(path):
    stages = []
    for word, rest in instructions(open(path, encoding="utf-8").read()):
        if word == "FROM":
            stages.append({"base": rest.split()[0], "body": []})
        elif stages:
            stages[-1]["body"].append((word, rest))
    if not stages:
        sys.exit(f"{path}: no FROM")
    stage = stages[-1]
    out = {
        "base": stage["base"], "packages": [], "runs": [], "copies": [], "environment": [],
        "user": "", "volumes": [], "ports": [], "healthcheck": "", "stop_signal": "",
        "entrypoint": [], "command": [],
    }
    for word, rest in stage["body"]:
        if word == "RUN":
            if "apt-get" in rest and " install " in rest:
                out["packages"] += installed_packages(rest)
            else:
                out["runs"].append(rest)
        elif word == "COPY":
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            out["copies"] += [f"{source}={words[-1]}" for source in words[:-1]]
        elif word == "ENV":
            out["environment"] += shlex.split(rest)
        elif word == "USER":
            out["user"] = rest
        elif word == "VOLUME":
            out["volumes"] += json.loads(rest) if rest.startswith("[") else rest.split()
        elif word == "EXPOSE":
            out["ports"] += rest.split()
        elif word == "HEALTHCHECK":
            _, found, command = rest.partition(" CMD ")
            if not found:
                sys.exit(f"{path}: HEALTHCHECK without CMD")
            out["healthcheck"] = command.strip()
        elif word == "STOPSIGNAL":
            out["stop_signal"] = rest
        elif word == "ENTRYPOINT":
            out["entrypoint"] = exec_form(rest)
        elif word == "CMD":
            out["command"] = exec_form(rest)
        elif word not in ("ARG", "WORKDIR", "LABEL"):
            sys.exit(f"{path}: the runtime stage's {word} is not read by {sys.argv[0]}")
    for name, value in out.items():
        if isinstance(value, list):
            print(f"{name}=({' '.join(shlex.quote(v) for v in value)})")
        else:
            print(f"{name}={shlex.quote(value)}")


if __name__ == "__main__":
    main(sys.argv[1])
