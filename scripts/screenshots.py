"""Render every chart tab of the window at the sizes people use, for the cases that crowd it:
a model that does not fit, a long model name, a large MoE, a 60-row Hardware table, a serving
engine that cannot start. Look at each PNG before calling a layout change done: overlaps and
cut-off text show only there.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots.py OUT_DIR \
        [--sizes 1280x720 1440x900 1920x1080] [--cases fit long] [--tabs memory hardware]

Writes OUT_DIR/<case>-<tab>-<W>x<H>.png and prints one line per file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

LONG_NAME = "Meta-Llama-3.1-405B-Instruct-abliterated-uncensored-imatrix-Q4_K_M-GGUF-v2 (custom)"
CASES: dict[str, dict[str, Any]] = {
    "fit": json.loads((Path(__file__).parents[1] / "docs/images/window.gpusizer.json").read_text()),
    "nofit": {
        "model": {"preset": "llama-3.1-405b"},
        "workload": {"kind": "full_finetune", "sequence_length": 8192},
        "hardware": {"gpu": "h100-sxm-80gb"},
    },
    "long": {
        "model": {"name": LONG_NAME, "parameters": 405_000_000_000},
        "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 4096},
        "hardware": {"gpu": "rtx-4090-24gb"},
    },
    "moe": {
        "model": {"preset": "deepseek-v3"},
        "workload": {"kind": "inference", "batch_size": 16, "prompt_tokens": 8192},
        "framework": "vllm",
        "parallelism": {"tensor": 8, "expert": 8, "data": 8},
        "hardware": {"gpu": "h200-141gb"},
        "targets": {"users": 64, "min_tokens_per_second_per_user": 20},
    },
    "kimi": {
        "model": {"preset": "kimi-k2"},
        "workload": {"kind": "inference", "batch_size": 1, "prompt_tokens": 2048},
        "framework": "sglang",
        "parallelism": {"tensor": 8, "pipeline": 2},
        "hardware": {"gpu": "h100-sxm-80gb"},
    },
    "vllm": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference", "batch_size": 16},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
    },
    "nostart": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": "rtx-4090-24gb"},
    },
    "pretrain": {
        "model": {"preset": "deepseek-v3"},
        "workload": {"kind": "pretraining", "training_tokens": 14.8e12, "sequence_length": 4096},
        "framework": "megatron",
        "parallelism": {"tensor": 1, "pipeline": 16, "expert": 64, "data": 128, "zero_stage": 1},
        "hardware": {"gpu": "h100-sxm-80gb"},
    },
}
SIZES = ("1280x720", "1440x900", "1920x1080")
Qt: Any = None  # PySide6.QtCore.Qt, imported in main (after the platform is chosen)


def user_gpus(count: int) -> list[dict[str, Any]]:
    """``count`` extra GPUs with long names (the catalog's 47 + 13 = a 60-row table)."""
    return [
        {
            "id": f"lab-accelerator-{i}",
            "name": f"Lab Accelerator Gen{i} 96GB HBM3e PCIe (engineering sample)",
            "vendor": "Lab",
            "memory_gb_as_sold": 96,
            "memory_bytes": 96 * 2**30,
            "hbm_bandwidth_gb_per_s": 2000 + 150 * i,
            "dense_tflops": {"bf16": 400.0 + 40 * i, "fp8": 800.0 + 80 * i},
            "interconnect_gb_per_s": 200,
            "gpus_per_node": 8,
            "tdp_watts": 600,
            "price_per_hour": 1.5 + 0.2 * i,
        }
        for i in range(count)
    ]


def check(chart: Any) -> list[str]:
    """Labels over each other or outside the plot, and Hardware-table cells cut short."""
    from gpusizer.gui.charts.labels import outside, overlaps

    if chart is None or not chart.plot_widget.isVisible():  # a serving chart's hint in training
        return []
    items = chart.annotations()
    texts = [i.toPlainText()[:40] for i in items]
    out = [f"overlap: {texts[i]!r} / {texts[j]!r}" for i, j in overlaps(items)]
    out += [f"outside: {texts[i]!r}" for i in outside(items, chart.plot.vb)]
    table = getattr(chart, "table", None)
    if table is not None and table.isVisible():
        header = table.horizontalHeader()
        for c in range(table.model().columnCount()):
            need = max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
            name = table.model().headerData(c, Qt.Orientation.Horizontal)
            if table.columnWidth(c) < need and name not in ("GPU", "System"):
                out.append(f"cut column: {name} ({table.columnWidth(c)} < {need} px)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--sizes", nargs="*", default=list(SIZES))
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    ap.add_argument("--tabs", nargs="*", default=None)
    ap.add_argument("--check", action="store_true", help="also list labels that overlap or are cut")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    settings = tempfile.mkdtemp(prefix="gpusizer-shots-")
    os.environ["GPUSIZER_SETTINGS_DIR"] = settings  # never the user's settings
    gpus = Path(settings) / "user-gpus.json"
    gpus.write_text(json.dumps(user_gpus(13)), encoding="utf-8")
    os.environ["GPUSIZER_USER_GPUS"] = str(gpus)

    global Qt
    from PySide6.QtCore import Qt

    from gpusizer.core.views.settings import CHARTS
    from gpusizer.gui.app import make_app
    from gpusizer.gui.main_window import MainWindow

    app = make_app()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tabs = args.tabs or list(CHARTS)
    for case in args.cases:
        for size in args.sizes:
            width, height = (int(v) for v in size.split("x"))
            window = MainWindow(CASES[case], restore=False)
            window.resize(width, height)
            window.show()
            for tab in tabs:
                window.tabs.select(tab)
                settle = getattr(window.tabs.current_chart(), "wait_settled", None)
                if callable(settle):
                    settle()
                window.advisor.wait()
                for _ in range(4):
                    app.processEvents()
                path = out / f"{case}-{tab}-{size}.png"
                window.grab().save(str(path))
                problems = check(window.tabs.current_chart()) if args.check else []
                print(path, *problems, sep="\n  ")
            window.close()
            window.deleteLater()
            app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
