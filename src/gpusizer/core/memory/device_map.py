"""Training a model spread over GPUs by ``device_map`` (naive model parallelism).

transformers' ``from_pretrained(device_map="auto")`` places consecutive layers on each GPU
(accelerate ``dispatch_model``, "Big Model Inference"; its hooks move each layer's input to the
layer's device), and the Trainer trains such a model as it is: ``Trainer.__init__`` sets
``is_model_parallel`` when ``hf_device_map`` names more than one GPU, does not move the model
and forces ``args._n_gpu = 1`` (no DataParallel; transformers ``trainer.py``, v4.30 - v5). The
PEFT QLoRA recipes of 2023-2024 run 70B models on 2-4 GPUs this way.

What that means for the estimate (``parallelism.pipeline`` > 1 under a framework whose
``FrameworkProfile.pipeline_device_map_training`` is true and which has no pipeline schedule):

- memory: each GPU holds its stage's layers (the first the embedding, the last the head and
  loss) and one micro-batch's activations, since the forward runs the stages one after another
  and the backward runs them back: no micro-batches in flight (1F1B would hold min(PP, m));
- time: one GPU works at a time, so a micro-batch costs every stage in turn, PP stage times
  (the 1F1B bubble of PP - 1 stage times per micro-batch, not per step);
- one process drives every GPU: no data parallelism, ZeRO, FSDP, tensor or context parallelism
  beside it (accelerate refuses a model loaded on several devices in a distributed mode:
  ``Accelerator.prepare_model``, "You can't train a model that has been loaded with
  `device_map='auto'` in any distributed mode").
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario


def runs_stages_in_turn(s: Scenario) -> bool:
    """Whether the scenario's framework and kind train pipeline stages one after another
    (device_map), at whatever pipeline degree the layout takes."""
    kind, prof = s.workload.info, s.profile
    return kind.trains and not kind.phased and prof.pipeline_device_map_training and not prof.pipelines(kind)


def sequential_stages(s: Scenario) -> bool:
    """Whether the scenario trains its pipeline stages one after another (device_map)."""
    return s.parallelism.pipeline > 1 and runs_stages_in_turn(s)


def check_device_map(s: Scenario, pipelining: str) -> None:
    """ScenarioError naming the first field that a device_map model cannot train beside;
    ``pipelining``: the frameworks whose pipeline schedules run beside them."""
    p, label = s.parallelism, s.profile.label
    why = f"{label} trains a model spread over GPUs by device_map in one process"
    for field, value, allowed in (
        ("data", p.data, 1),
        ("tensor", p.tensor, 1),
        ("context", p.context, 1),
        ("expert", p.expert, 1),
        ("virtual_stages", p.virtual_stages, 1),
        ("zero_stage", p.zero_stage, 0),
    ):
        if value != allowed:
            raise ScenarioError(
                f"parallelism.{field}",
                f"must be {allowed} with parallelism.pipeline > 1 ({why}, stage after stage); "
                f"got {value}; pipeline stages beside it run under {pipelining}",
            )


def micro_batches(s: Scenario, data: int) -> int:
    """Micro-batches a step (gradient accumulation): the global batch over micro x data; one
    when unset (the Trainer's gradient_accumulation_steps default)."""
    w = s.workload
    return max(1, (w.global_batch_size or w.micro_batch_size * data) // (w.micro_batch_size * data))
