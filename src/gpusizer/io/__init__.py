"""Files in and out: scenario files, config.json/safetensors import, exports. No Qt."""
