"""Write the example notebooks from their cell sources and execute them to store outputs.

    python notebooks/build.py            # all three
    python notebooks/build.py 01         # the ones whose name starts with 01

The committed notebooks are this script's output. CI re-executes them under
nbval (outputs compared, ids/hashes/times sanitized by sanitize.cfg) and
under nbclient (any error output fails). Each notebook works in a fresh
temporary ARBORIST_HOME, offline, with the default extractive model.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent

SETUP = """\
import atexit, os, shutil, tempfile
scratch = tempfile.mkdtemp(prefix="arborist-nb-")  # a fresh, private home for each run
atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # removed when the kernel exits
os.environ["ARBORIST_HOME"] = scratch
if "arborist_nb" not in get_ipython().extension_manager.loaded:
    %load_ext arborist_nb"""

# The quickstart runs in the home `make demo` (and `make lab`) name in ARBORIST_NB_HOME, so
# that `arborist --home .demo-home verify --witness .demo-home/01-quickstart.ipynb` checks
# the notebook against the shard it wrote to; run anywhere else, it makes its own.
QUICKSTART_SETUP = """\
import atexit, os, shutil, tempfile
# `make demo` runs this notebook in its home (.demo-home/). Anywhere else a kernel's first run
# makes a private home, which running the notebook again reuses; the kernel's exit removes it.
if os.environ.get("ARBORIST_NB_HOME"):
    os.environ["ARBORIST_HOME"] = os.environ["ARBORIST_NB_HOME"]
elif "scratch" not in globals():
    scratch = tempfile.mkdtemp(prefix="arborist-nb-")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    os.environ["ARBORIST_HOME"] = scratch
if "arborist_nb" not in get_ipython().extension_manager.loaded:
    %load_ext arborist_nb"""

# No cell removes the home: Run All queues the widget's requests behind the last cell, so a
# home removed there is one the widget still reads (issue #35). The kernel's exit removes it;
# a run that sets another home leaves the last one to its widget until then.
NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "01-quickstart": [
        (
            "md",
            "# arborist quickstart\n\nIngest the built-in corpus (the Python standard library's own pydoc text, offline), ask questions that cite their sources, follow up, fork, and look at the forest. Everything here runs offline with the default `extractive` model.",
        ),
        ("code", QUICKSTART_SETUP),
        ("code", "# NBVAL_IGNORE_OUTPUT (a progress bar)\n%arborist ingest --demo"),
        (
            "md",
            "Ask in a `%%ask` cell. The answer opens with the definition of what you asked about and cites its evidence with short labels (`[E1]`; click one to read the chunk, and the provenance section lists each label's title and URI). The output says whether it came from the cache, how strong its proof is (`STRICT`: the cited text re-hashes to a leaf whose Merkle proof verifies), and shows both stores' chain heads (its witness line): a saved notebook is a witness of the history it saw.",
        ),
        ("code", "%%ask\nWhat does statistics.median return?"),
        ("code", "median = _\n[status.verified for status in median.verify()]"),
        (
            "md",
            'A follow-up (a question that continues the last one, or says "it") lands under the last turn and borrows its words, so a vague question still finds the right module.',
        ),
        ("code", "%%ask\nWhat about the low median?"),
        (
            "md",
            "A question that names its own subject stands alone: it lands under the session's root and retrieves exactly as if it were asked first, whatever came before it. Running this notebook again in the same kernel (or under `make demo`, whose home outlives the kernel) finds every turn where it was: same answers, no new turns.",
        ),
        ("code", "%%ask\nWhat does itertools.groupby do?"),
        ("code", "%%ask\nWhat does statistics.median return?"),
        ("code", "_.bates == median.bates and _.turn.reused"),
        (
            "md",
            "Fork: go back to the first turn and ask something else. Variables interpolate with `{name}`.",
        ),
        ("code", "%arborist cd 1"),
        ("code", 'topic = "mean"\n'),
        ("code", "%%ask\nHow does statistics compute the {topic}?"),
        ("code", "%arborist tree"),
        (
            "md",
            "The forest widget: browse, open a turn to see its evidence re-verified in the browser, fork, label, search.",
        ),
        ("code", "%arborist"),
        (
            "md",
            "A new session asking the same question over the same evidence, model and policy is served from the cache: no model call, and the output says where the answer was first paid for.",
        ),
        ("code", "%arborist session new"),
        ("code", "%%ask\nWhat does statistics.median return?"),
    ],
    "02-provenance": [
        (
            "md",
            "# Provenance: what an answer proves, and what happens when sources change\n\nWe write two small documents, ask about them, re-verify the proofs with nothing but `hashlib`, tamper with a copy of the store and watch `verify` catch it, falsify an answer, and check this notebook as a witness.",
        ),
        (
            "code",
            SETUP
            + '\nfrom pathlib import Path\ndocs = Path(os.environ["ARBORIST_HOME"]) / "docs"\ndocs.mkdir()\nsources = {\n    "spider.md": "# Spider-Man\\n\\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\\n\\nHe first appeared in Amazing Fantasy number 15 in 1962.\\n",\n    "batman.md": "# Batman\\n\\nBatman was created by artist Bob Kane and writer Bill Finger.\\n",\n}\nfor name, text in sources.items():\n    (docs / name).write_text(text)',
        ),
        ("code", "# NBVAL_IGNORE_OUTPUT (a progress bar)\n%arborist ingest {docs}"),
        ("code", "%%ask\nWho created Spider-Man?"),
        ("code", "answer = _\nsorted(answer.proofs[0])"),
        (
            "md",
            "Anyone can check a proof without arborist: the leaf is `sha256(0x00 || text)`, interior nodes `sha256(0x03 || left || right)`, folded as RFC 9162 says, against the document's `source_root` and its stored `chunk_count`.",
        ),
        (
            "code",
            'import hashlib\n\ndef outsider_verify(item):\n    node = hashlib.sha256(b"\\x00" + item["text"].encode()).digest()\n    if node.hex() != item["leaf"]:\n        return False\n    fn, sn = item["chunk_index"], item["chunk_count"] - 1\n    for sibling in map(bytes.fromhex, item["proof"]):\n        if fn & 1 or fn == sn:\n            node = hashlib.sha256(b"\\x03" + sibling + node).digest()\n            while not fn & 1 and fn:\n                fn, sn = fn >> 1, sn >> 1\n        else:\n            node = hashlib.sha256(b"\\x03" + node + sibling).digest()\n        fn, sn = fn >> 1, sn >> 1\n    return sn == 0 and node.hex() == item["source_root"]\n\n[outsider_verify(item) for item in answer.proofs]',
        ),
        (
            "md",
            "Tamper with a **copy** of the store: change one word of a chunk. `verify` recomputes every leaf and root and names what changed.",
        ),
        (
            "code",
            'import shutil, sqlite3, subprocess, sys\nhome = Path(os.environ["ARBORIST_HOME"])\ncopy = home / "tampered"  # inside the home, so it goes with it\ncopy.mkdir(mode=0o700)\nfor name in ("store.db", "sessions.db"):\n    (copy / name).touch(mode=0o600)  # private, as arborist makes its own\n    src, dst = sqlite3.connect(home / name), sqlite3.connect(copy / name)\n    src.backup(dst); src.close(); dst.close()\nwith sqlite3.connect(copy / "store.db") as db:\n    db.execute("UPDATE chunks SET text = replace(text, \'Ditko\', \'Kirby\')")\ndone = subprocess.run([sys.executable, "-m", "arborist", "--home", str(copy), "verify"], capture_output=True, text=True)\nprint("exit", done.returncode)\nprint(done.stdout.replace(str(docs), "<docs>"))',
        ),
        ("md", "The real store is untouched:"),
        ("code", "%arborist verify"),
        (
            "md",
            "Falsify the answer: it stays on record, but the next same ask is a miss that writes a new revision.",
        ),
        ("code", '%arborist falsify 1 --state failed --reason "checking the credits again"'),
        ("code", "%%ask --parent root\nWho created Spider-Man?"),
        ("code", "revised = _"),
        (
            "md",
            "Changing a cited document marks the answers that cited it stale; asking again pays for a new answer over the new evidence.",
        ),
        (
            "code",
            'changed = sources["spider.md"].replace("Steve Ditko.", "Steve Ditko, for Marvel.")\nsize = (docs / "spider.md").write_text(changed)',
        ),
        ("code", "# NBVAL_IGNORE_OUTPUT (a progress bar)\n%arborist ingest {docs}"),
        ("code", "%%ask --parent root\nWho created Spider-Man?"),
        ("code", "fresh = _"),
        (
            "md",
            "This notebook is a witness: every answer above printed both stores' chain heads. Saved as a notebook, those outputs are checked against each store's chain by `arborist verify --witness`.",
        ),
        (
            "code",
            'import nbformat\noutputs = [nbformat.v4.new_output("execute_result", data={"text/plain": repr(a)}, execution_count=n) for n, a in enumerate([answer, revised, fresh], 1)]\nwitness = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[o]) for o in outputs])\nnbformat.write(witness, home / "witness.ipynb")\n%arborist verify --witness {home}/witness.ipynb',
        ),
    ],
    "03-forest": [
        (
            "md",
            "# The forest: sessions, cross-session forks, search, labels, export and import\n\nEvery turn of every session is a node of one forest. Yesterday's turn can have today's child.",
        ),
        ("code", SETUP),
        ("code", "# NBVAL_IGNORE_OUTPUT (a progress bar)\n%arborist ingest --demo"),
        ("code", "%arborist session new"),
        ("code", "%%ask --label shuffling\nHow do I shuffle a list randomly?"),
        ("code", "yesterday = _\n%arborist session new"),
        ("code", "%%ask\nHow do I read rows from a CSV file?"),
        ("code", "today = _"),
        (
            "md",
            "A cross-session fork: move to yesterday's turn and ask under it. Yesterday's session's hashes ripple up to include today's child; its other turns keep theirs.",
        ),
        ("code", "%arborist cd {yesterday.bates}"),
        ("code", "%%ask\nCan I pick one element at random instead?"),
        ("code", "%arborist tree"),
        ("code", "%arborist find random"),
        ("code", "%arborist label picking"),
        (
            "md",
            "Export both sessions as JSON Lines: `%arborist export SID` shows the lines and is the cell's value, `--out FILE` writes them. Then import them into another shard with the `arborist` command: every hash is re-proved, and the same nodes give the same hashes.",
        ),
        (
            "code",
            'from pathlib import Path\nhome = Path(os.environ["ARBORIST_HOME"])\n%arborist export {yesterday.node.sid} --out {home}/yesterday.jsonl\n%arborist export {today.node.sid} --out {home}/today.jsonl',
        ),
        (
            "code",
            'import json\nlines = %arborist export {today.node.sid}\n[json.loads(line)["type"] for line in lines.splitlines()]',
        ),
        (
            "code",
            'import subprocess, sys\ndef arborist(*args):\n    return subprocess.run([sys.executable, "-m", "arborist", *args], capture_output=True, text=True, check=True).stdout\nfor name in ("yesterday", "today"):\n    print(arborist("session", "--import", str(home / f"{name}.jsonl"), "--sessions-db", str(home / "other.db")), end="")',
        ),
        (
            "code",
            'import sqlite3\nhashes = lambda path: dict(sqlite3.connect(path).execute(\n    "SELECT bates, subtree_hash FROM nodes JOIN node_links USING (id)"))\nhashes(home / "other.db") == hashes(home / "sessions.db")',
        ),
        ("code", "%arborist verify"),
        (
            "md",
            "Related sources, learned from use (opt-in). With `ARBORIST_COACCESS=1`, the chunks each turn cites are recorded for its session (the notebook's path only as a keyed hash), and chunks cited close together in a session become related. A later session that cites one of them is shown the others. It is a behavioural signal, never evidence until an `--related` ask puts it in the evidence, where it is proved like the rest.",
        ),
        ("code", 'os.environ["ARBORIST_COACCESS"] = "1"\n%arborist session new'),
        ("code", "%%ask\nHow do I shuffle a list randomly?"),
        ("code", "%%ask --parent root\nWhat does statistics.median return?"),
        ("code", "%arborist session new"),
        ("code", "%%ask\nHow do I shuffle a list randomly?"),
        ("code", "%arborist related {_.bates}"),
    ],
}


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def prune_widgets(notebook: Any) -> None:
    """Keep in the saved widget state only the models an output shows (and the models those
    refer to): nbclient keeps every model a run made, closed ones too (the ingest bar's,
    replaced by its text once done: issue #35)."""
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        return
    todo = [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    ]
    kept: set[str] = set()
    while todo:
        model = todo.pop()
        if model in kept or model not in state:
            continue
        kept.add(model)
        todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state[model]))
    for model in set(state) - kept:
        del state[model]
    if not state:
        del notebook.metadata["widgets"]


def build(name: str, cells: list[tuple[str, str]]) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        # ipykernel's own display name: JupyterLab writes the running kernel's spec into
        # the notebook, and any difference marks a notebook modified as soon as it opens.
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    for kind, source in cells:
        cell = (
            nbformat.v4.new_markdown_cell(source)
            if kind == "md"
            else nbformat.v4.new_code_cell(source)
        )
        notebook.cells.append(cell)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute()
    prune_widgets(notebook)
    path = HERE / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


def main() -> None:
    wanted = sys.argv[1:]
    for name, cells in NOTEBOOKS.items():
        if not wanted or any(name.startswith(w) for w in wanted):
            print("built", build(name, cells))


if __name__ == "__main__":
    main()
