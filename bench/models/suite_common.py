"""What the model-suite scripts share: their common command-line options
and how they write their generated pages."""
import argparse
import json
import os
import subprocess
import sys

DEFAULT_MODELS_DIR = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "hetc", "models")


def suite_parser(description):
    """A parser with the options every suite script takes: --hetc, the
    models' cache folder and the Python that exports them with torch."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--hetc", required=True)
    parser.add_argument("--models-dir", default=DEFAULT_MODELS_DIR)
    parser.add_argument("--torch-python", default=os.environ.get("HETC_TORCH_PYTHON",
                                                                  "/usr/bin/python3"))
    return parser


def exported_models(args, script):
    """Exports the models `args` selects (its --only and --quick) with
    export_models.py under --torch-python, cached in --models-dir, and
    returns their names; exits naming `script` if torch is missing."""
    here = os.path.dirname(os.path.abspath(__file__))
    export = [args.torch_python, os.path.join(here, "export_models.py"), args.models_dir]
    if args.only:
        export += ["--only", args.only]
    if args.quick:
        export += ["--quick"]
    listed = subprocess.run(export + ["--list"], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"{script}: cannot list the models with "
                 f"{args.torch_python} (it needs torch and torchvision):\n{listed.stderr}")
    names = listed.stdout.split()
    subprocess.run(export, check=True)
    return names


def write_cached(info_path, info, stamp_path, digest):
    """Writes a cached model's description (JSON) atomically, then the
    stamp that says which recipe made it."""
    with open(info_path + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
    os.replace(info_path + ".tmp", info_path)
    with open(stamp_path, "w") as f:
        f.write(digest)


def write_page(path, text):
    """Writes a generated page atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def summary(rows, what):
    """The closing line of a page: how many rows passed, and `what`."""
    passed = sum(r["status"] == "pass" for r in rows)
    return ["", f"{passed} of {len(rows)} {what}.", ""]
