"""Op dtype contracts: which dtypes each torch operator supports on CPU and on CUDA.

The table is generated from torch's own operator test database (OpInfo, in
``torch.testing._internal.common_methods_invocations.op_db``) by ``generate.py``, with the CPU
gaps observed on CPU and the CUDA ones observed on a real GPU (``observe.py`` writes
``data/cuda_observations/*.json``; ``merge.py`` folds the newest file in), and shipped as
``torchtype_lint/data/op_contracts.json``. The linter reads it through ``table.py``, which
never imports torch; only the generator and the observer do
(``python -m torchtype_lint.contracts generate|observe``).
"""
