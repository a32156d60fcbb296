"""Host seconds of one rollout engine ``load_weights`` call's Python walk, per parameter tensor of
the engine's model (core/registry/rl_engine_loads.py ``LOAD_CALL_SECONDS_PER_TENSOR``).

verl's fully-async sync with the checkpoint engine off (and OpenRLHF's broadcast loop) hands each
received tensor to vLLM's ``model.load_weights([(name, tensor)])`` on its own. Each call rebuilds
``params_dict = dict(self.named_parameters())`` over the whole engine model and, for a MoE model,
``FusedMoE.make_expert_params_mapping`` (3 entries an expert) and scans it for the tensor's name
(vllm ``model_executor/models/qwen3_moe.py`` / ``qwen2.py`` ``load_weights``). This script builds
the module tree vLLM holds for Qwen2.5-7B, Qwen3-30B-A3B and Qwen3-235B-A22B (fused ``qkv_proj``
and ``gate_up_proj``, ``experts.w13_weight`` / ``w2_weight``; meta tensors, so no memory) and times
that per-call walk on one thread. Needs torch (not a project dependency):
``python scripts/measure_engine_load_call.py``.

Measured on the build machine (AMD EPYC vCPU, torch 2.13.0+cpu, one thread, median of 200 calls):
Qwen2.5-7B 198 parameter tensors 229 us, Qwen3-30B-A3B 434 tensors 497 us, Qwen3-235B-A22B 848
tensors 962 us: 1.13-1.16 us a parameter tensor. The GPU copy of the tensor itself and vLLM's
``AutoWeightsLoader`` recursion are not in it (so a lower bound of the call).
"""

from __future__ import annotations

import time

import torch
from torch import nn


def _param() -> nn.Parameter:
    return nn.Parameter(torch.empty(1, device="meta"), requires_grad=False)


class _Weight(nn.Module):
    def __init__(self, bias: bool = False) -> None:
        super().__init__()
        self.weight = _param()
        if bias:
            self.bias = _param()


class _Empty(nn.Module):
    pass


class _Attention(nn.Module):
    def __init__(self, qk_norm: bool, bias: bool) -> None:
        super().__init__()
        self.qkv_proj, self.o_proj = _Weight(bias), _Weight()
        self.rotary_emb, self.attn = _Empty(), _Empty()
        if qk_norm:
            self.q_norm, self.k_norm = _Weight(), _Weight()


class _Experts(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w13_weight, self.w2_weight = _param(), _param()


class _MoE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gate, self.experts = _Weight(), _Experts()


class _MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gate_up_proj, self.down_proj, self.act_fn = _Weight(), _Weight(), _Empty()


class _Layer(nn.Module):
    def __init__(self, moe: bool, qk_norm: bool, bias: bool) -> None:
        super().__init__()
        self.self_attn = _Attention(qk_norm, bias)
        self.mlp: nn.Module = _MoE() if moe else _MLP()
        self.input_layernorm, self.post_attention_layernorm = _Weight(), _Weight()


class _Model(nn.Module):
    def __init__(self, layers: int, moe: bool, qk_norm: bool, bias: bool) -> None:
        super().__init__()
        self.embed_tokens, self.norm = _Weight(), _Weight()
        self.layers = nn.ModuleList(_Layer(moe, qk_norm, bias) for _ in range(layers))


def _mapping(experts: int) -> list[tuple[str, str, int, str]]:
    shards = [("w1", "gate_proj"), ("w2", "down_proj"), ("w3", "up_proj")]
    return [
        ("experts.w13_" if w != "down_proj" else "experts.w2_", f"experts.{e}.{w}.", e, sid)
        for e in range(experts)
        for sid, w in shards
    ]


def _call(model: nn.Module, experts: int, name: str) -> None:
    params = dict(model.named_parameters())
    for param_name, weight_name, _, _ in _mapping(experts) if experts else []:
        if weight_name in name:
            params.get(name.replace(weight_name, param_name))
            break


def main() -> None:
    torch.set_num_threads(1)
    runs = [
        ("qwen2.5-7b", 28, False, False, True, 0, "layers.5.mlp.down_proj.weight"),
        ("qwen3-30b-a3b", 48, True, True, False, 128, "layers.5.mlp.experts.127.down_proj.weight"),
        ("qwen3-235b-a22b", 94, True, True, False, 128, "layers.5.mlp.experts.127.down_proj.weight"),
    ]
    for label, layers, moe, qk_norm, bias, experts, name in runs:
        model = _Model(layers, moe, qk_norm, bias)
        tensors = len(dict(model.named_parameters()))
        times = []
        for _ in range(200):
            start = time.perf_counter()
            _call(model, experts, name)
            times.append(time.perf_counter() - start)
        median = sorted(times)[100]
        per = median / tensors * 1e6
        print(f"{label}: {tensors} tensors, {median * 1e6:.0f} us a call, {per:.2f} us a tensor")


if __name__ == "__main__":
    main()
