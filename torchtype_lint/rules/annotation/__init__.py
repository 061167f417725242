"""TTL6xx: shape annotations (jaxtyping, TorchShapeFlow, torchtyping) read as contracts; one rule a file."""
