"""TTL26x: code that runs on CPU and raises on CUDA, reported where it runs on a GPU."""
