"""The note of a training option whose offloaded optimizer steps after every micro-batch
because the scenario's global batch is one micro-batch a GPU.

The speed model steps the optimizer once per optimizer step, after the step's micro-batches
(core/speed/train_step.py ``data_parallel_pricer``: the optimizer is added once, the compute
scaled by the micro-batches), as the frameworks do: DeepSpeed's ``engine.step()`` takes the
model step only at ``is_gradient_accumulation_boundary()`` (deepspeed/runtime/engine.py), its
ZeRO-Offload CPU Adam with it; between boundaries ZeRO-1/2 only accumulate the gradient
partition in pinned host memory (deepspeed/runtime/zero/stage_1_and_2.py
``async_accumulate_grad_in_cpu_via_gpu``); FSDP's ``CPUOffload`` / FSDP2's ``CPUOffloadPolicy``
leave ``optimizer.step()`` to the loop, once per batch. What makes a 1-GPU pre-training run
take thousands of days is the batch: ``workload.global_batch_size`` unset is the micro-batch
times the data-parallel GPUs (Megatron-LM ``megatron/training/arguments.py``: "setting global
batch size to" ``micro_batch_size * data_parallel_size``), so on one GPU every 4,096 tokens
pay a CPU Adam over all the parameters: Llama 3.2 3B on one RTX A6000, 4.5 of a 5.9 s step
(tests/cli/data/buyer/pretrain-3b-300b-3weeks). The field keeps its meaning; the note says why
and what a stated global batch does.
"""

from __future__ import annotations

from ..model.result import Estimate


def offload_step_note(est: Estimate) -> list[str]:
    """``[sentence]`` where ``est``'s layout offloads the optimizer, its global batch is unset
    and one micro-batch a GPU, and the host's optimizer step is at least half of the step."""
    s, step = est.scenario, est.compute.training_step
    if step is None or not step.get("from_layout") or est.rl is not None:  # RL: its own phases
        return []
    if not s.parallelism.offload_optimizer or s.workload.global_batch_size is not None:
        return []
    host, whole = float(step["optimizer_seconds"]), float(step["seconds"])
    if step["microbatches"] != 1 or 2 * host < whole:
        return []
    return [
        f"the optimizer offloaded to the CPU steps after every micro-batch: {host:.1f} of the "
        f"step's {whole:.1f} s for {int(step['tokens']):,} tokens, as workload.global_batch_size "
        "unset is one micro-batch a GPU (Megatron-LM's default); a stated global batch of more "
        "micro-batches steps it once per batch (the frameworks step at the accumulation boundary) "
        "and shortens the run"
    ]


def parameter_offload_note(est: Estimate) -> list[str]:
    """``[sentence]`` where ``est``'s training layout offloads its weights: they live in host RAM
    and cross the host link before each pass (core/speed/param_offload.py prices the copies in
    the step's time), so the host RAM the option needs is part of the answer."""
    s = est.scenario
    if not s.parallelism.offload_parameters or s.workload.serves or est.rl is not None:
        return []
    host = est.memory.host_memory / 1e9
    full = s.parallelism.recompute == "full"
    passes = "forward, recompute and backward" if full else "forward and backward"
    return [
        f"parameter offload: the weights live in host RAM ({host:,.1f} GB a GPU with the other "
        f"offloads) and are copied up over the host link before each {passes}; the time "
        "includes what the compute does not hide"
    ]
