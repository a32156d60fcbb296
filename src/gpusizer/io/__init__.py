"""Files in and out: scenario files, config.json/safetensors import, exports. No Qt."""

from .hf_config import import_hf_config
from .safetensors_header import read_safetensors

__all__ = ["import_hf_config", "read_safetensors"]
