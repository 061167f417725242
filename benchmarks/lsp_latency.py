"""Edit-to-diagnostics latency of ``torchtype-lint lsp`` over the real stdio protocol.

Starts the server as an editor does, opens one document, then sends ``didChange`` edits one at a
time and measures the wall time from sending the change to receiving ``publishDiagnostics`` for
that document version. Each edit waits for the previous one's diagnostics, so the numbers are
latencies, not throughput. Three kinds of edit, each a new text every time:

- ``comment``: a comment line, different each time, is added at the end;
- ``method``: a literal inside a method of a class in the middle of the file changes;
- ``statement``: a module-level statement in the middle of the file changes;
- ``burst``: three ``statement`` edits sent 10 ms apart, as fast typing sends them, timed from the
  last one: the server waits for the quiet after a burst (its debounce) and analyses only the last.

    python benchmarks/lsp_latency.py [FILE] [--edits N] [--lines N] [--project] [--main]

Without FILE, a generated training script of ``--lines`` lines (default 1,000) is used; with
``--project`` its batch makers live in a sibling ``data.py`` it imports (project-wide analysis);
with ``--main`` its module-level statements are inside one ``main()`` called at the end (then an
edit anywhere can change what ``main()`` does, and the whole of it is analysed again).
The server's debounce (``lsp.DEBOUNCE_SECONDS``) is part of what an editor sees and is included: a
single edit after a pause is analysed at once (the debounce's leading edge); only the edits of a
``burst`` wait for it.

On Linux it also reports the CPU seconds the server and its analysis child spent from ``didOpen``
to the first diagnostics (``open_cpu_s``, and for each edit: ``cpu_median_s``; the clock ticks by
10 ms): what the open costs where the machine is busy and wall
times say more about the other work than about this one; and the time from starting the server
to those diagnostics (``from_start_s``), as an editor that starts it for the first file sees.
"""
from __future__ import annotations

import argparse
import json
import re
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

BLOCK = '''
class Block{i}(nn.Module):
    def __init__(self, width={w}):
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.outer = nn.Linear(width, 2)

    def forward(self, x):
        h = torch.relu(self.inner(x))
        return self.outer(h)


def make_batch{i}(n):
    data = np.random.rand(n, {w})
    return torch.from_numpy(data).float()


model{i} = Block{i}()
out{i} = model{i}(make_batch{i}(4))
loss{i} = F.cross_entropy(out{i}, torch.zeros(4, dtype=torch.long))
'''


def generated(lines: int) -> str:
    parts = ["import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"]
    i = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(BLOCK.format(i=i, w=8 + i % 5))
        i += 1
    return "".join(parts)


def inside_main(text: str) -> str:
    """The same script with its module-level statements (all but imports, classes and defs)
    moved into ``main()``, called at the end."""
    kept, body = [], []
    chunks = re.split(r"\n(?=\S)", text)
    for chunk in chunks:
        if chunk.startswith(("import ", "from ", "class ", "def ")):
            kept.append(chunk)
        elif chunk.strip():
            body.append("    " + chunk.replace("\n", "\n    "))
    return "\n".join(kept) + "\n\n\ndef main():\n" + "\n".join(body) + "\n\n\nmain()\n"


def split_project(text: str, directory: Path) -> Path:
    """Move the generated script's batch makers into ``data.py``; the script imports them."""
    makers = re.findall(r"\ndef make_batch\d+\(n\):\n(?:    .*\n)+", text)
    names = re.findall(r"def (make_batch\d+)", "".join(makers))
    (directory / "data.py").write_text("import numpy as np\nimport torch\n" + "\n".join(makers))
    script = text
    for maker in makers:
        script = script.replace(maker, "\n")
    header = "".join(f"from data import {name}\n" for name in names)
    path = directory / "train.py"
    path.write_text(header + script)
    return path


def tree_cpu(pid: int) -> Optional[float]:
    """CPU seconds (user + system) of process ``pid``, its reaped children and its living
    descendants, from /proc (Linux); None where there is none."""
    stats: Dict[int, List[str]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                    stats[int(name)] = handle.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
    if pid not in stats:
        return None
    family, ticks = {pid}, 0
    for _ in range(8):  # descendants, however deep (a few levels at most)
        family |= {p for p, fields in stats.items() if int(fields[1]) in family}
    for member in family:
        fields = stats[member]
        ticks += int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if member == pid else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, python: str = sys.executable, env: Optional[Dict[str, str]] = None) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen([python, "-m", "torchtype_lint", "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def send(self, message: Dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> Dict[str, Any]:
        length = 0
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server exited")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method: str, params: Any) -> Dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def diagnostics(self, uri: str, version: int) -> List[Any]:
        while True:
            message = self.receive()
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri \
                    and params.get("version") == version:
                return params["diagnostics"]

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.send({"method": "exit"})
            self.process.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a benchmark's teardown
            self.process.kill()


#: Edits in a ``burst`` and the seconds between them (faster than the debounce: keystrokes).
BURST_EDITS, BURST_GAP_S = 3, 0.01
#: The pause before each measured edit (or burst), longer than the debounce: a user who stops typing.
PAUSE_S = 0.2


def edited_lines(lines: List[str], kind: str, version: int) -> List[str]:
    """The document's lines after edit number ``version`` of ``kind`` (see the module doc)."""
    edited = list(lines)
    kind = "statement" if kind == "burst" else kind
    if kind == "comment":
        return edited + [f"# edit {version}"]
    if kind == "method":
        pattern = re.compile(r"nn\.Linear\(width, (\d+)\)")
    else:
        pattern = re.compile(r"torch\.zeros\((\d+), dtype=torch\.long\)")
    matches = [i for i, line in enumerate(lines) if pattern.search(line)]
    at = matches[len(matches) // 2]
    edited[at] = pattern.sub(lambda m: m.group(0).replace(m.group(1), str(2 + version % 2), 1)
                             if kind == "method" else m.group(0) + f" + {version % 2}", lines[at], count=1)
    return edited


def measure(path: Path, edits: int, kinds: List[str], python: str = sys.executable,
            env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Open ``path`` in a new server (``python -m torchtype_lint lsp`` with ``env``), then make
    ``edits`` edits of each of ``kinds``: the open's latency and CPU, each kind's latencies."""
    text = path.read_text()
    lines = text.splitlines()
    uri = path.resolve().as_uri()
    server = Server(python, env)
    out: Dict[str, Any] = {"lines": len(lines), "edits": edits}
    try:
        server.request("initialize", {"processId": os.getpid(), "rootUri": path.resolve().parent.as_uri(),
                                      "capabilities": {}})
        server.send({"method": "initialized", "params": {}})
        started, cpu_before = time.perf_counter(), tree_cpu(server.process.pid)
        server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}}})
        out["findings"] = len(server.diagnostics(uri, 1))
        out["open_s"] = time.perf_counter() - started
        out["from_start_s"] = time.perf_counter() - server.started  # the server's own start included
        cpu_after = tree_cpu(server.process.pid)
        out["open_cpu_s"] = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
        version = 1
        for kind in kinds:
            latencies, cpus = [], []
            for _ in range(edits):
                time.sleep(PAUSE_S)
                cpu_before = tree_cpu(server.process.pid)
                for sent in range(BURST_EDITS if kind == "burst" else 1):
                    if sent:
                        time.sleep(BURST_GAP_S)
                    version += 1
                    edited = edited_lines(lines, kind, version)
                    started = time.perf_counter()  # a burst is timed from its last edit
                    server.send({"method": "textDocument/didChange", "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": "\n".join(edited) + "\n"}]}})
                server.diagnostics(uri, version)
                latencies.append(time.perf_counter() - started)
                cpu_after = tree_cpu(server.process.pid)
                if cpu_before is not None and cpu_after is not None:
                    cpus.append(cpu_after - cpu_before)
            out[kind] = {"median_s": statistics.median(latencies),
                         "p90_s": sorted(latencies)[int(0.9 * (len(latencies) - 1))], "min_s": min(latencies),
                         "cpu_median_s": statistics.median(cpus) if cpus else None}
    finally:
        server.close()
    return out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--project", action="store_true", help="import the batch makers from a sibling module")
    parser.add_argument("--main", action="store_true", help="module-level statements inside one main()")
    parser.add_argument("--kinds", default="comment,method,statement,burst")
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",") if not args.file else ["comment"]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(args.file) if args.file else Path(directory) / "train.py"
        if not args.file:
            text = generated(args.lines)
            path.write_text(inside_main(text) if args.main else text)
            if args.project:
                path = split_project(path.read_text(), Path(directory))
        result = measure(path, args.edits, kinds)
    cpu = f" ({result['open_cpu_s'] * 1000:.0f} ms of CPU)" if result["open_cpu_s"] is not None else ""
    print(f"{result['lines']} lines, {result['findings']} findings: open {result['open_s'] * 1000:.0f} ms{cpu}, "
          f"{result['from_start_s'] * 1000:.0f} ms from the server's start")
    for kind in kinds:
        numbers = result[kind]
        cpu = f", CPU median {numbers['cpu_median_s'] * 1000:.0f} ms" if numbers["cpu_median_s"] is not None else ""
        print(f"  {kind} edit to diagnostics over {result['edits']} edits: median {numbers['median_s'] * 1000:.0f} ms, "
              f"p90 {numbers['p90_s'] * 1000:.0f} ms, min {numbers['min_s'] * 1000:.0f} ms{cpu}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
