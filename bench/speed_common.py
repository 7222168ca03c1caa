"""What bench/compare-openssl and bench/compare-provider share.

Running a command (with an optional time limit) and turning any failure into
`Failure`; reading `-mr` output of `openssl speed` and `cryptoaccel speed`;
the best rate per size over rounds; pinning a command to CPUs with taskset;
how busy the rest of the machine was meanwhile; the machine, OpenSSL version
and commit lines. Standard library only.

The scripts import it from their own directory:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
"""

import os
import platform
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

# The sizes openssl speed measures by default (without -aead).
DEFAULT_SIZES = [16, 64, 256, 1024, 8192, 16384]

# Substrings of the AEAD ciphers' names (`openssl speed -aead` applies to them).
AEAD_ALGORITHMS = ("gcm", "chacha20-poly1305")

# Above this many CPUs used by other processes during a measurement, its
# figures are flagged as disturbed.
BUSY_ELSEWHERE_LIMIT = 0.10


class Failure(Exception):
    """A command failed or printed something we cannot read."""


def log(message):
    print(message, file=sys.stderr, flush=True)


def canonical(name):
    """Our spelling of an algorithm name (hmac(sha256) -> hmac-sha256)."""
    name = name.strip().lower()
    if name.startswith("hmac(") and name.endswith(")"):
        return "hmac-" + name[5:-1]
    return name


def is_aead(name):
    return any(marker in name for marker in AEAD_ALGORITHMS)


def openssl_arguments(name, aead=False):
    """openssl speed's selection options for one of our algorithm names.

    HMAC is `-hmac DIGEST`: OpenSSL 3.0's speed has no `-mac` option (3.3
    added it), and its -hmac goes through EVP_MAC_fetch("HMAC") with the
    -propquery, so a provider's HMAC serves it.
    """
    if name.startswith("hmac-"):
        return ["-hmac", name[len("hmac-"):]]
    if aead and is_aead(name):
        return ["-aead", "-evp", name]
    return ["-evp", name]


def machine_busy_seconds():
    """CPU-seconds the whole machine has been busy (steal included), or None."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest is inside user)
    busy = sum(fields[i] for i in (0, 1, 2, 5, 6, 7) if i < len(fields))
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def execute(command, what, probe=None, env=None, timeout=None, stdin=None):
    """Runs a command and returns its CompletedProcess (text stdout and stderr).

    Raises Failure, with the end of its stderr, when it cannot start, exits
    with a status other than 0, or is still running after `timeout` seconds
    (it is then killed). `env`: variables to set on top of this process's;
    `stdin`: as subprocess's (default: this process's).
    With `probe` (a dict), records in probe["busy_elsewhere"] how many CPUs
    other processes (and the hypervisor, as steal) kept busy meanwhile.
    """
    busy0, ours0, t0 = machine_busy_seconds(), children_cpu_seconds(), time.monotonic()
    try:
        result = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, check=False, timeout=timeout,
                                env=None if env is None else dict(os.environ, **env))
    except subprocess.TimeoutExpired as e:
        raise Failure(f"{what}: {shlex.join(command)} was still running after {timeout:g} s; "
                      "killed") from e
    except OSError as e:
        raise Failure(f"{what}: cannot run {shlex.join(command)}: {e}") from e
    busy1, ours1, t1 = machine_busy_seconds(), children_cpu_seconds(), time.monotonic()
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-15:])
        raise Failure(f"{what}: {shlex.join(command)} exited with status {result.returncode}\n"
                      f"{tail}")
    if probe is not None and busy0 is not None and busy1 is not None and t1 > t0:
        elsewhere = max(0.0, (busy1 - busy0) - (ours1 - ours0)) / (t1 - t0)
        probe["busy_elsewhere"] = max(probe.get("busy_elsewhere", 0.0), elsewhere)
    return result


def run(command, what, probe=None, env=None, timeout=None):
    """Runs a command and returns its stdout; raises Failure with its stderr (see execute)."""
    return execute(command, what, probe, env=env, timeout=timeout).stdout


def parse_mr(text, what):
    """Parses `-mr` output: the +H line (sizes) and the first +F line (bytes/s per size).

    Both `openssl speed -mr` and `cryptoaccel speed -mr` print
        +H:16:64:256:...
        +F:<index>:<name>:<rate>:<rate>:...
    with rates in bytes per second. The name may contain spaces; the rates are
    the last len(sizes) fields. With -multi, openssl prints the +F line of the
    sums and no +H line of its own (see below), so the order is not relied on.
    (-hmac and -cmac print +F lines too; +F2 to +F9 are the public-key
    results, which these scripts do not measure.)
    """
    sizes = None
    results = []
    for line in text.splitlines():
        line = line.strip()
        # With -multi, openssl prints only the sums' +F line itself; the
        # sizes come from its "Got: +H:... from N" echo of a worker's line.
        if line.startswith("Got: +H:") and sizes is None:
            line = line[len("Got: "):].rsplit(" from ", 1)[0]
        if line.startswith("+H:") and sizes is None:
            try:
                sizes = [int(field) for field in line.split(":")[1:]]
            except ValueError as e:
                raise Failure(f"{what}: cannot read the sizes line {line!r}") from e
        elif line.startswith("+F:"):
            results.append(line)
    if sizes is None or not results:
        raise Failure(f"{what}: no +H/+F lines in the output:\n{text.strip()[:2000]}")
    fields = results[0].split(":")
    if len(fields) < 3 + len(sizes):
        raise Failure(f"{what}: expected {len(sizes)} rates in {results[0]!r}")
    try:
        rates = [float(field) for field in fields[-len(sizes):]]
    except ValueError as e:
        raise Failure(f"{what}: cannot read the rates in {results[0]!r}") from e
    name = ":".join(fields[2:-len(sizes)])
    return name, dict(zip(sizes, rates))


def best(rounds):
    """The highest rate per size over the rounds (a size missing in a round is skipped)."""
    out = {}
    for rates in rounds:
        for size, rate in rates.items():
            out[size] = max(out.get(size, 0.0), rate)
    return out


def kilo(rate):
    """A rate in bytes per second as openssl speed prints it: 1000s of bytes, 'k'."""
    return "-" if rate is None else f"{rate / 1e3:.2f}k"


def taskset(command, cpus):
    """The command under `taskset -c CPUS` (a CPU number or a list such as "0,1"), or as is."""
    if cpus is None:
        return command
    return ["taskset", "-c", str(cpus), *command]


def parse_cpu_list(text):
    """Reads taskset's CPU list syntax ("1", "0,1", "0-3"); raises ValueError."""
    cpus = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            low, high = (int(x) for x in part.split("-", 1))
            if low > high:
                raise ValueError(f"empty range {part!r}")
            cpus.extend(range(low, high + 1))
        else:
            cpus.append(int(part))
    if not cpus or any(c < 0 for c in cpus):
        raise ValueError(f"no CPUs in {text!r}")
    return list(dict.fromkeys(cpus))


def openssl_version(openssl):
    try:
        return run([openssl, "version"], "openssl version").strip()
    except Failure:
        return "unknown"


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def git_commit(repo):
    """`git rev-parse --short HEAD` of the checkout, "+dirty" when it has changes; or None."""
    repo = Path(repo)
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                check=True, timeout=30).stdout.strip()
        status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                                 "--untracked-files=no"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if status else "")
