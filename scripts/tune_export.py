# Reads a tune database the supported way, through `tune export --json` (schema tune-export, version 2),
# for the report scripts: none of them reads tune's SQLite tables itself.
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT_TUNE = os.path.join(ROOT, "build", "tune")
# kExportSchemaVersion in src/store/export.h; 2 added fields only, which these scripts do not read.
EXPORT_SCHEMA_VERSION = 2


def export_database(tune, db):
    """The database at db as `tune export --json --db db` prints it; exits naming the command when it fails."""
    try:
        out = subprocess.run([tune, "export", "--json", "--db", db], capture_output=True, text=True)
    except OSError as e:
        raise SystemExit(f"cannot run the tune binary '{tune}' ({e.strerror}): build it or pass --tune PATH")
    if out.returncode != 0:
        raise SystemExit(f"{tune} export --json --db {db} failed: {out.stderr.strip()}")
    doc = json.loads(out.stdout)
    if doc.get("schema") != "tune-export" or doc.get("schema_version") != EXPORT_SCHEMA_VERSION:
        raise SystemExit(f"{tune} export --db {db}: expected a tune-export document of schema version "
                         f"{EXPORT_SCHEMA_VERSION}, got {doc.get('schema')!r} version {doc.get('schema_version')!r}")
    return doc
