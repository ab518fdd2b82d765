"""Resumable split runs: every finished part is written down as soon as it is known.

A checkpoint is a JSON-lines file.  The first line names the plan it belongs to (a
fingerprint of everything that decides the parts and their answers) and the polytile
version that wrote it; each further line is one finished part: its key, status, count,
seconds, the solutions it kept (as the part's decision variables that are 1), a digest
of the part's model, and a checksum of the line tied to the file's fingerprint.  Lines
are appended and fsync'ed one at a time, so a run killed at any moment leaves every part
it reported, and at worst one torn last line, which resuming drops.

A checkpoint cannot lie: a record whose checksum does not match (edited by hand, or
damaged), a part recorded twice, a record for another model, or a file of another
pipeline or version is refused with the line it is on; nothing in it is ever added.

``polytile solve run.toml --checkpoint FILE`` writes one; the same command with
``--resume`` skips the parts in it and adds their recorded answers to the totals, so
the resumed run ends with the same count as an uninterrupted one.  Only parts that
completed are recorded (a part cut short by a time limit, or that failed, is solved
again); in mode ``one`` only parts without a tiling are, so that a resumed run looks
further instead of stopping at a part it already knew about.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.convert import CONVERTER, structure
from polytile_core.errors import InputError
from polytile_core.host.contracts import BackendResult
from polytile_core.model.parts import Part
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination
from polytile_core.solve.collect import default_keep
from polytile_core.solve.workers import PartOutcome

FORMAT = 2


def _version() -> str:
    try:
        return metadata.version("polytile")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


def record_checksum(fingerprint: str, record: dict) -> str:
    """The checksum a record line carries: its fields (less the checksum), bound to the file."""
    fields = {key: value for key, value in record.items() if key != "check"}
    text = fingerprint + json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def plan_fingerprint(plan: Plan) -> str:
    """A digest of what decides the parts and what each one reports.

    The backend, the executor, the number of jobs and the time limit are left out: a
    run may be resumed on another machine, with another backend or a longer limit.
    """
    facts = {
        "problem": plan.problem,
        "pieces": [[p.name, [list(cell) for cell in p.cells], p.kind, p.minimum, p.maximum] for p in plan.pieces],
        "region": sorted(plan.region.cells) if plan.region is not None else None,
        "builder_options": CONVERTER.unstructure(plan.builder.options),
        "split": plan.split.name if plan.split else None,
        "split_options": CONVERTER.unstructure(plan.split.options if plan.split else None),
        "mode": plan.settings.mode,
        "keep": default_keep(plan),
        "distinct": plan.distinct,
    }
    text = json.dumps(facts, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def model_digest(model: Model) -> str:
    """Ties a record to the very model it solved (variable order included)."""
    digest = hashlib.sha256()
    for label in model.labels:
        digest.update(label.encode() + b"\0")
    for constraint in model.constraints:
        digest.update(f"{constraint.name}{constraint.sense}{constraint.rhs}:{len(constraint.terms)}\0".encode())
    return digest.hexdigest()[:16]


@attrs.frozen
class PartRecord:
    """One finished part as the checkpoint keeps it."""

    key: str
    answer: BackendResult
    solutions: list[list[int]]
    seconds: float
    model: str


class Checkpoint:
    """The checkpoint file of one split run; ``open`` it, then put it in ``Plan.checkpoint``."""

    def __init__(self, path: Path, fingerprint: str, mode: str, records: dict[str, PartRecord]):
        self.path = path
        self.fingerprint = fingerprint
        self.mode = mode
        self.records = records  # read from the file, not replayed yet
        self.done: set[str] = set(records)  # every key in the file (kept small: no solutions)
        self.replayed = 0
        self._digests: dict[int, str] = {}  # id(whole model) -> digest: the tree split's parts share one model

    def digest(self, part: Part) -> str:
        """The digest of the model a part solves (for a part with fixed variables: of the
        whole model, and the variables fixed)."""
        if part.fixed is None:
            return model_digest(part.model)
        whole = self._digests.get(id(part.model))
        if whole is None:
            whole = self._digests[id(part.model)] = model_digest(part.model)
        fixed = ",".join(map(str, part.fixed)).encode()
        return hashlib.sha256(whole.encode() + b"|" + fixed).hexdigest()[:16]

    @classmethod
    def open(cls, path: str | Path, plan: Plan, *, resume: bool) -> Checkpoint:
        """Start a new checkpoint, or (``resume``) read an existing one for this plan.

        A new checkpoint never replaces a file; resuming a file that does not exist yet
        starts it, so one command can be rerun until the run completes.
        """
        if plan.split is None:
            raise InputError(
                "a checkpoint records the parts of a split run: add [split] method = ...", path="--checkpoint"
            )
        path = Path(path)
        fingerprint = plan_fingerprint(plan)
        if path.exists() and not resume:
            raise InputError(
                "the checkpoint exists already; pass --resume to continue it, or choose another name", source=str(path)
            )
        if not path.exists():
            header = {
                "polytile_checkpoint": FORMAT,
                "fingerprint": fingerprint,
                "mode": plan.settings.mode,
                "version": _version(),
            }
            _append(path, header)
            return cls(path, fingerprint, plan.settings.mode, {})
        return cls(path, fingerprint, plan.settings.mode, _read(path, fingerprint))

    def replay(self, part: Part) -> PartOutcome | None:
        """A recorded part's answer, handed to the run instead of solving the part again."""
        record = self.records.pop(part.key, None)
        if record is None:
            return None
        if record.model != self.digest(part):
            raise InputError(
                f"part {part.key!r} has a different model than when it was recorded "
                "(another version of the split?); start a new checkpoint",
                source=str(self.path),
            )
        self.replayed += 1
        return PartOutcome(record.answer, record.solutions, record.seconds)

    def record(self, part: Part, outcome: PartOutcome) -> None:
        """Append a part that completed (once per key), and make it durable before returning."""
        answer = outcome.answer
        if part.key in self.done or answer.termination != Termination.COMPLETED:
            return
        if self.mode == "one" and answer.found in (Found.FEASIBLE, Found.OPTIMAL):
            return  # mode one: a part with a tiling ends the run; resuming should look further
        record = PartRecord(
            part.key, answer, [list(ones) for ones in outcome.solutions], outcome.seconds, self.digest(part)
        )
        data = CONVERTER.unstructure(record)
        _append(self.path, {**data, "check": record_checksum(self.fingerprint, data)})
        self.done.add(part.key)


def _append(path: Path, data: dict) -> None:
    line = json.dumps(data, separators=(",", ":")) + "\n"
    try:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(line)
            stream.flush()
            os.fsync(stream.fileno())
    except OSError as exc:
        raise InputError(f"cannot write the checkpoint ({exc.strerror})", source=str(path)) from None


def _read(path: Path, fingerprint: str) -> dict[str, PartRecord]:
    """The records of a checkpoint, after checking it belongs to this plan.

    A last line without its newline is what a kill in the middle of a write leaves:
    it is cut off the file, and the part is solved again.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the checkpoint ({exc.strerror})", source=str(path)) from None
    complete, _, torn = raw.rpartition(b"\n")
    lines = complete.decode("utf-8", errors="replace").split("\n") if complete else []
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or "polytile_checkpoint" not in header:
        raise InputError("not a polytile checkpoint", source=str(path))
    if header.get("polytile_checkpoint") != FORMAT or header.get("version") != _version():
        written = header.get("version", "an earlier version")
        raise InputError(
            f"this checkpoint was written by polytile {written} (format {header.get('polytile_checkpoint')}), "
            f"not by this polytile {_version()}: its parts cannot be trusted here; start a new checkpoint",
            source=str(path),
        )
    if header.get("fingerprint") != fingerprint:
        raise InputError(
            "this checkpoint was written for a different pipeline (pieces, region, split or mode differ); "
            "use the same pipeline and mode, or another checkpoint file",
            source=str(path),
        )
    if torn:  # only now that the file is known to be ours
        with open(path, "r+b") as stream:
            stream.truncate(len(complete) + 1)
    records: dict[str, PartRecord] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            if data.get("check") != record_checksum(fingerprint, data):
                raise ValueError("its checksum does not match: the line was edited or damaged")
            record = structure({key: value for key, value in data.items() if key != "check"}, PartRecord)
        except (ValueError, InputError) as exc:
            raise InputError(
                f"line {number} is damaged ({exc}); nothing of this checkpoint was used: "
                "start a new one, or remove that line to solve its part again",
                source=str(path),
            ) from None
        if record.key in records:
            raise InputError(
                f"line {number} records part {record.key!r} a second time; nothing of this checkpoint was used: "
                "remove one of the two lines to solve that part again",
                source=str(path),
            )
        records[record.key] = record
    return records
