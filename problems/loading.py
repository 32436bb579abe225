"""Reading the committed data files of the catalogue (gzip CSVs in ``problems/data``, manifest
with provenance) and the small codings the loaders share."""
from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np


DATA_DIR = pathlib.Path(__file__).resolve().parent / "data"

AREG = "Pelckmans, Suykens & De Moor (2006), Additive regularization trade-off (Machine Learning 62)"
CW = "Pelckmans et al., Componentwise Least Squares Support Vector Machines (2005)"
L2SVM = "Bonidal, Tindel & Guermeur (2013), Model selection for the l2-SVM by following the regularization path"
MOBJ = "You, Benitez-Quiroz & Martinez (2014), Multiobjective optimization for model selection in kernel " \
       "methods in regression"

RAETSCH = {  # shared/DATASETS.md sec. 4
    "banana": (400, 4900), "breast_cancer": (200, 77), "diabetis": (468, 300), "flare_solar": (666, 400),
    "german": (700, 300), "heart": (170, 100), "image": (1300, 1010), "ringnorm": (400, 7000),
    "splice": (1000, 2175), "thyroid": (140, 75), "titanic": (150, 2051), "twonorm": (400, 7000),
    "waveform": (400, 4600),
}


# --------------------------------------------------------------------------- helpers
@functools.lru_cache(maxsize=1)
def manifest() -> dict[str, Any]:
    """The parsed ``problems/data/MANIFEST.json`` (``["files"][fname]`` per data file)."""
    return json.loads((DATA_DIR / "MANIFEST.json").read_text())


def read_csv(fname: str):
    import pandas as pd  # imported lazily: `import lssvm_cvx.problems` stays cheap

    path = DATA_DIR / fname
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; rebuild with problems/data/make_data.py")
    return pd.read_csv(path, keep_default_na=False, na_values=[])


def numeric(df) -> np.ndarray:
    return np.ascontiguousarray(df.to_numpy(dtype=np.float64))


def labels_str(s) -> np.ndarray:
    return np.asarray(s.to_numpy(dtype=object)).astype(str)


def dataset_meta(files: Sequence[str], papers: Sequence[str], *, raetsch: str | None = None, **extra: Any) -> dict:
    m = manifest()["files"]
    entries = [m[f] for f in files]
    meta: dict[str, Any] = {
        "kind": "real",
        "files": list(files),
        "source": [e["source"] for e in entries] if len(entries) > 1 else entries[0]["source"],
        "sha256": {f: m[f]["sha256"] for f in files},
        "licence": entries[0]["licence"],
        "citation": entries[0]["citation"],
        "papers": list(papers),
        "preprocessing_at_build": entries[0]["preprocessing"],
    }
    if raetsch is not None:
        meta["raetsch_sizes"] = RAETSCH[raetsch]
    meta.update(extra)
    return meta


def onehot(values: np.ndarray, categories: Sequence[str], prefix: str) -> tuple[np.ndarray, list[str]]:
    """Indicator columns for ``categories``; values outside them (e.g. '?') give an all-zero row."""
    values = np.asarray(values).astype(str)
    cats = [str(c) for c in categories]
    out = (values[:, None] == np.asarray(cats)[None, :]).astype(np.float64)
    return out, [f"{prefix}={c}" for c in cats]


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")


def pm1_mask(mask: np.ndarray) -> np.ndarray:
    return np.where(mask, 1, -1).astype(np.int64)


# -------------------------------------------------------------------------- regression
