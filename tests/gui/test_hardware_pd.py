"""The Hardware tab's table with a P/D scenario (``serving.disaggregated``): the row shows the
answer ranked, the split where it is the cheaper (core/sizing/pd_choice.py), and the other
answer in the columns "Other answer" and "Other $/M tok", as ``gpusizer-cli compare`` does;
a scenario without the split has neither column."""

from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt

from gpusizer import compare_gpus
from gpusizer.gui.hardware.table import OptionsModel
from gpusizer.io.compare_table import columns_for, is_pd
from tests.scenarios import LLAMA_70B_PD

# Llama 3.1 70B for 64 users at a 1 s first token (tests/cli/test_pd_compare_rank.py): 8 H100
# aggregated miss the first token (2.65 s), a split meets it
LLAMA: dict[str, Any] = LLAMA_70B_PD


def _cells(model: OptionsModel) -> dict[str, str]:
    heads = [model.headerData(i, Qt.Orientation.Horizontal) for i in range(model.columnCount())]
    return {h: model.data(model.index(0, i)) for i, h in enumerate(heads)}


def test_the_table_shows_the_split_ranked_and_the_aggregated_beside_it(qtbot: Any) -> None:
    options = compare_gpus(LLAMA, gpus=["h100-sxm-80gb"])
    model = OptionsModel()
    model.set_options(options, columns_for(False, True, False, is_pd(options)))
    cells = _cells(model)
    o = options[0]
    assert cells["Layout"] == o["layout"] and cells["Layout"].startswith(f"{o['pd_chosen']}: ")
    assert cells["GPUs"] == f"{o['disaggregated_split_gpus']:,}"
    assert cells["Other answer"] == f"{o['pd_other_gpus']} aggregated"
    assert cells["Other $/M tok"] != ""


def test_no_split_no_other_columns(qtbot: Any) -> None:
    plain = copy.deepcopy(LLAMA)
    del plain["serving"]["disaggregated"]
    options = compare_gpus(plain, gpus=["h100-sxm-80gb"])
    assert not is_pd(options)
    model = OptionsModel()
    model.set_options(options, columns_for(False, True, False, is_pd(options)))
    assert "Other answer" not in _cells(model)
