"""``model.mtp_layers`` on import (io/hf_mtp.py, io/gguf_import.py): the checkpoint's
multi-token-prediction layers as its config.json or GGUF states them, as the engines read them.

Fixtures: the released config.json files in ``configs/`` (DeepSeek-V3 ``num_nextn_predict_layers``
1, Kimi K2 0, Llama 3.1 8B and Qwen3-Next no key); every preset's value is pinned against its
config by tests/io/test_hf_config.py ``test_import_reproduces_the_preset``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.io import import_hf_config
from gpusizer.io.gguf_import import gguf_config
from gpusizer.io.gguf_reader import read_gguf

from .gguf_files import tiny_llama_gguf

CONFIGS = Path(__file__).parent / "configs"


def _config(name: str) -> dict[str, Any]:
    return dict(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("fixture", "layers"),
    [("deepseek-v3", 1), ("glm-4.5-air", 1), ("kimi-k2", 0), ("llama-3.1-8b", 0), ("qwen3-next-80b-a3b", 1)],
)
def test_released_configs(fixture: str, layers: int) -> None:
    # Qwen3-Next states no key: vLLM qwen3_next_mtp.py reads num_nextn_predict_layers, default 1
    assert import_hf_config(CONFIGS / f"{fixture}.json")["mtp_layers"] == layers


def test_either_key_is_read_and_an_unknown_family_without_one_is_unknown() -> None:
    cfg = _config("llama-3.1-8b")
    assert import_hf_config({**cfg, "model_type": "mimo", "num_nextn_predict_layers": 1})["mtp_layers"] == 1
    assert (
        import_hf_config({**cfg, "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 2})["mtp_layers"] == 2
    )
    assert "mtp_layers" not in import_hf_config({**cfg, "model_type": "somenew"})  # null: unknown


def test_a_bad_count_is_refused_naming_the_key() -> None:
    with pytest.raises(ScenarioError, match="num_nextn_predict_layers must be a whole number"):
        import_hf_config({**_config("deepseek-v3"), "num_nextn_predict_layers": "one"})


def test_gguf_states_its_nextn_layers(tmp_path: Path) -> None:
    # llama.cpp llama-model.cpp load_hparams: nextn_predict_layers optional (0), and block_count
    # counts the MTP blocks the file keeps (GLM-4.5 conversions)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    kv: dict[str, Any] = {"llama.block_count": 2, "llama.nextn_predict_layers": 1}
    kept = read_gguf(tiny_llama_gguf(tmp_path / "a", **kv))
    cfg, _ = gguf_config(kept, "kept")
    assert cfg["num_hidden_layers"] == 1 and import_hf_config(cfg)["mtp_layers"] == 1
    plain, _ = gguf_config(read_gguf(tiny_llama_gguf(tmp_path / "b")), "plain")
    assert import_hf_config(plain)["mtp_layers"] == 0
