"""Memory of a step: weights, gradients, optimizer states, activations, the loss, LoRA/PEFT,
training phases and techniques, and inference activations and KV bytes per token."""
