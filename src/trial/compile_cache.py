# A compile cache tune can vouch for (issue 34): a folder of Inductor's caches (FX graphs, AOTAutograd, generated
# kernels) that trials share, with a manifest tune writes after each trial that ended well. A cache from another torch,
# Python or machine, or whose files changed since, is rebuilt (emptied, so the next compile is cold), never reused
# silently; a folder with files tune did not record is refused.
"""The manifest of a shared compile cache: who made it, with what, and a digest of every file in it.

open_cache(folder, ...) runs before torch is imported (Inductor reads the folder's name from the environment);
seal(folder, ...) after a trial that ended ok. Both hold an exclusive lock on the folder's lock file, so concurrent
trials on one folder never see a half-written manifest nor empty a folder another is checking.
"""
import datetime
import fcntl
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil

MANIFEST = "tune-cache.json"
LOCK = ".tune-cache.lock"
FORMAT = 1
OWN_FILES = {MANIFEST, MANIFEST + ".tmp", LOCK}


def cpuinfo_field(name):
    """The first CPU's `name` line of /proc/cpuinfo (its value), or None where there is none."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(name):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    return cpuinfo_field("model name") or platform.processor() or "unknown CPU"


def cpu_flags_digest():
    """A digest of the CPU's instruction-set flags: Inductor's CPU kernels are generated for the ISA they find."""
    flags = cpuinfo_field("flags")
    if flags is None:
        return "none"
    return hashlib.blake2b(" ".join(sorted(flags.split())).encode(), digest_size=8).hexdigest()


def gpu_models():
    """The NVIDIA GPUs' models as the driver lists them (torch is not imported yet), or "no GPU listed"."""
    models = []
    root = "/proc/driver/nvidia/gpus"
    for bus in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        try:
            with open(os.path.join(root, bus, "information")) as f:
                models += [l.split(":", 1)[1].strip() for l in f if l.startswith("Model:")]
        except OSError:
            pass
    return ", ".join(models) or "no GPU listed"


def identity(device):
    """What a cache's contents depend on beyond their own keys: torch's version, Python's, the machine and device."""
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "not installed"
    return {"torch": torch_version, "python": platform.python_version(),
            "machine": "%s, %s, ISA %s" % (platform.machine(), cpu_model(), cpu_flags_digest()),
            "device": gpu_models() if device.startswith("cuda") else "cpu"}


def cached_files(folder):
    """Every file of the cache but tune's own, as paths relative to the folder, sorted."""
    files = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.relpath(os.path.join(root, name), folder)
            if path not in OWN_FILES:
                files.append(path)
    return sorted(files)


def digest(path):
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def bytes_digest(data):
    """digest() of bytes in memory."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_record(path):
    """A manifest or sidecar: its JSON object, None where the file does not exist, or {"unreadable": why}."""
    try:
        with open(path) as f:
            record = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return {"unreadable": "%s: %s" % (type(e).__name__, e)}
    return record if isinstance(record, dict) else {"unreadable": "not a JSON object"}


def read_manifest(folder):
    return read_record(os.path.join(folder, MANIFEST))


def why_not_vouched(record, what, me, keys):
    """Why a manifest or sidecar (`what`: "manifest tune-cache.json") cannot vouch for what it records, or None: it is
    damaged, of another format, or made with another of `keys` (torch, Python, machine, device) than `me`'s."""
    if "unreadable" in record:
        return "its %s is damaged (%s)" % (what, record["unreadable"])
    if record.get("format") != FORMAT:
        return "its %s has format %r, this tune writes %d" % (what.split()[0], record.get("format"), FORMAT)
    made_with = record.get("identity", {})
    for key in keys:
        if made_with.get(key) != me[key]:
            return "it was made with %s %r, this trial runs %s %r" % (key, made_with.get(key), key, me[key])
    return None


def why_not_reusable(folder, manifest, me):
    """Why the cache's contents cannot be vouched for, or None: another torch/Python/machine, or a changed file."""
    why = why_not_vouched(manifest, "manifest " + MANIFEST, me, ("torch", "python", "machine", "device"))
    if why is not None:
        return why
    for path, recorded in sorted(manifest.get("files", {}).items()):
        full = os.path.join(folder, path)
        if not os.path.isfile(full):
            return "damaged: its file %s is missing" % path
        if os.path.getsize(full) != recorded.get("size") or digest(full) != recorded.get("digest"):
            return "damaged: its file %s changed since tune recorded it" % path
    return None


def empty(folder):
    for name in os.listdir(folder):
        if name == LOCK:
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


class Locked:
    """The folder's lock file, held exclusively for the block."""

    def __init__(self, folder):
        self.path = os.path.join(folder, LOCK)

    def __enter__(self):
        self.file = open(self.path, "a")
        fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def open_cache(folder, device, tune_owned):
    """Checks `folder` before a trial compiles into it. Returns (account, rebuilt): the account says whose cache it is
    ("made 2026-12-06T06:40:11Z by <trial folder>, torch 2.15.0"), or that it starts empty; rebuilt says why it was
    emptied, or is None. A folder with files but no manifest is emptied when tune owns it (a study's cache of a tune
    from before manifests, or of a trial that crashed before sealing), and refused (ValueError) when the user named it:
    tune never deletes files it did not write."""
    os.makedirs(folder, exist_ok=True)
    me = identity(device)
    with Locked(folder):
        manifest = read_manifest(folder)
        files = cached_files(folder)
        if manifest is None and not files:
            return "empty", None
        if manifest is None:
            if not tune_owned:
                raise ValueError("compile cache folder '%s' holds %d files tune did not record (no %s): name an "
                                 "empty folder or one tune made" % (folder, len(files), MANIFEST))
            why = "it holds %d files without tune's manifest (a trial that ended before recording them)" % len(files)
        else:
            why = why_not_reusable(folder, manifest, me)
        if why is None:
            return "made %s by %s, %s" % (manifest.get("created_at", "?"), manifest.get("made_by", "?"),
                                          "torch " + me["torch"]), None
        empty(folder)
        return "empty", why


def seal(folder, device, trial_dir):
    """Records every file of `folder` after a trial that ended ok (the creation keeps its first date and trial)."""
    with Locked(folder):
        old = read_manifest(folder) or {}
        if "unreadable" in old:
            old = {}  # a damaged manifest's dates say nothing: this trial makes the cache anew
        files = {}
        for path in cached_files(folder):
            full = os.path.join(folder, path)
            files[path] = {"size": os.path.getsize(full), "digest": digest(full)}
        now = utc_now()
        manifest = {"format": FORMAT, "identity": identity(device),
                    "created_at": old.get("created_at", now), "made_by": old.get("made_by", trial_dir),
                    "sealed_at": now, "files": files}
        tmp = os.path.join(folder, MANIFEST + ".tmp")
        with open(tmp, "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
        os.replace(tmp, os.path.join(folder, MANIFEST))



# ---- carried compile artifacts (torch.compiler.save_cache_artifacts, "Mega-Cache") ----
# What a trial's compiles put in Inductor's caches, as one file another process (on another machine) loads before it
# compiles. Its sidecar says who made it and a digest of its bytes: a file from another torch, Python or device, or
# whose bytes changed, is not loaded (the compile is then cold, and says why). Another machine is allowed (that is
# what carrying is for) and named in the account: torch's own keys decide what hits there.

ARTIFACTS = "compile-artifacts.bin"
ARTIFACTS_SIDECAR = "compile-artifacts.json"


def save_artifacts(torch, trial_dir, device):
    """Writes this process's compile artifacts into trial_dir; returns an account ("saved 350 KB: inductor 2, ...")."""
    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        return "no compile artifacts to save (nothing was compiled through Inductor's caches)"
    data, info = saved
    entries = {kind: len(keys) for kind, keys in info.artifacts.items() if keys}
    path = os.path.join(trial_dir, ARTIFACTS)
    with open(path, "wb") as f:
        f.write(data)
    sidecar = {"format": FORMAT, "identity": identity(device), "bytes": len(data), "digest": bytes_digest(data),
               "entries": entries, "created_at": utc_now()}
    with open(os.path.join(trial_dir, ARTIFACTS_SIDECAR), "w") as f:
        json.dump(sidecar, f, indent=1, sort_keys=True)
    return "saved %d bytes to %s (%s)" % (len(data), path, describe_entries(entries))


def describe_entries(entries):
    return ", ".join("%s %d" % (kind, n) for kind, n in sorted(entries.items())) or "no entries"


def why_not_loadable(sidecar, data, me):
    """Why a carried artifacts file must not be loaded, or None (another machine is no reason)."""
    why = why_not_vouched(sidecar, "sidecar " + ARTIFACTS_SIDECAR, me, ("torch", "python", "device"))
    if why is None and (len(data) != sidecar.get("bytes") or bytes_digest(data) != sidecar.get("digest")):
        why = "damaged: its bytes changed since tune saved them"
    return why


def read_sidecar(path):
    sidecar_path = os.path.join(os.path.dirname(path), ARTIFACTS_SIDECAR)
    sidecar = read_record(sidecar_path)
    return {"unreadable": "%s is missing" % sidecar_path} if sidecar is None else sidecar


def load_artifacts(torch, path, device):
    """Loads a carried artifacts file into the (empty) Inductor cache before the trial compiles. Returns (account,
    refused): the account names the file, its maker and what it held; refused says why it was not loaded (or None).
    A path that is not a readable file is the user's error (ValueError)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError("compile artifacts '%s' cannot be read: %s (expected a %s a trial saved)" % (path, e, ARTIFACTS))
    sidecar = read_sidecar(path)
    me = identity(device)
    why = why_not_loadable(sidecar, data, me)
    if why is not None:
        return "carried artifacts %s not loaded" % path, why
    torch.compiler.load_cache_artifacts(data)
    made_on = sidecar["identity"].get("machine")
    where = "this machine" if made_on == me["machine"] else "another machine (%s)" % made_on
    return "carried artifacts %s, made %s on %s (%s)" % (path, sidecar.get("created_at", "?"), where,
                                                         describe_entries(sidecar.get("entries", {}))), None
