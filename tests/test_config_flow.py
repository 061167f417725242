"""Configuration and the helpers that build things (issue 25): argparse namespaces and their
defaults, config dicts/dataclasses/namespaces, values stored on ``args`` by a helper, flags that
switch ``model.half()`` on and off, factories, registries picked by name, pipelines of
callables and collate functions.

Each case is a small program with the finding expected and a twin where the configuration
makes it fine, which must be silent. A finding that rests on a command-line default names it.
A finding that quotes torch's message is checked against what the torch installed here raises
running the program (the wording depends on the CPU, device and torch version), and its twin
must run.
"""
from __future__ import annotations

import textwrap

import pytest
from torch_runs import AsClaimed, quoted_wordings, quotes_what_torch_raised, raised_as_said, run_in_torch

from torchtype_lint.checker.check import check_source
from torchtype_lint.engine.configuration import assumption_note, folded_comparison
from torchtype_lint.model.values import NoneValue, ScalarValue, SequenceValue, StringValue


def findings(source: str):
    return [(f.code, f.location.line, f.message) for f in check_source(textwrap.dedent(source), "t.py").findings]


def codes(source: str):
    return sorted({(code, line) for code, line, _ in findings(source)})


HALF_FLAG = """\
import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--fp16", {flag})
parser.add_argument("--dim", type=int, default=8)
args = parser.parse_args()
model = nn.Linear(args.dim, 2)
if args.fp16:
    model = model.half()
x = torch.randn(4, args.dim)
y = model(x)
"""


@pytest.mark.parametrize("flag, expected", [
    ('action="store_true", default=True', True),
    ('action="store_true"', False),
    ('action="store_false"', True),
    ('action="store_false", default=False', False),
    ("type=bool, default=True", True),
    ('type=bool, default="False"', True),  # argparse's classic: bool("False") is True
    ("type=int, default=1", True),
    ("type=int, default=0", False),
    ('type=int, default="0"', False),  # a string default goes through type=
])
def test_a_flag_switching_half_follows_its_default(flag, expected):
    found = findings(HALF_FLAG.format(flag=flag))
    if expected:
        assert [(c, line) for c, line, _ in found] == [("TTL401", 13)]
        assert found[0][2].startswith("With the default configuration (--fp16=")
    else:
        assert found == []


@pytest.mark.parametrize("argv, flag, expected", [
    ('["--fp16"]', 'action="store_true"', True),
    ('["--fp16", "--dim", "8"]', 'action="store_true"', True),
    ('("--dim=8", "--fp16")', 'action="store_true"', True),
    ('["--dim", "8"]', 'action="store_true"', False),
    ('["--fp16"]', 'action="store_false"', False),
    ('["--fp16=0"]', "type=int, default=1", False),
    ('["--fp16", "--verbose"]', 'action="store_true"', False),  # an option the parser lacks: argparse exits
    ('["--fp"]', 'action="store_true"', False),  # an abbreviation: not simulated
    ('["--fp16", "x"]', "type=int, default=0", False),  # argparse exits with a usage error
    ('["--fp16", "-1"]', "type=int, default=0", False),  # a value that looks like an option: not simulated
    ('["--fp16", "yes"]', "type=bool, default=False", False),  # type=bool: not simulated
    ('["--fp16", "1"]', "type=int, default=0, choices=[0, 1]", True),
    ('["--fp16", "2"]', "type=int, default=0, choices=[0, 1]", False),  # argparse exits: invalid choice
    ('["--fp16", "1"]', "type=int, default=0, choices=sorted(set(range(2)))", True),  # choices not known: any
])
def test_a_written_argument_list_is_parsed(argv, flag, expected):
    """``parse_args(["--fp16"])``: the options a written list sets are facts of the program
    (no "default configuration" note); anything not simulated exactly leaves every option
    unknown, so the flag decides no branch."""
    found = findings(HALF_FLAG.format(flag=flag).replace("parse_args()", f"parse_args({argv})"))
    if expected:
        assert [(c, line) for c, line, _ in found] == [("TTL401", 13)]
        assert not found[0][2].startswith("With the default configuration")
    else:
        assert found == []


def test_the_simulated_argument_lists_are_what_argparse_gives():
    """The simulation (configuration._parsed_argv) against argparse itself, on the lists it
    answers: each option it sets has the value argparse gives."""
    import argparse

    from torchtype_lint.engine.configuration import ParserValue, _FlagSpec, _parsed_argv

    def real():
        parser = argparse.ArgumentParser(exit_on_error=False)
        parser.add_argument("--fp16", "-f", action="store_true")
        parser.add_argument("--no-ema", action="store_false")
        parser.add_argument("--lr", type=float, default=0.1)
        parser.add_argument("--depth", type=int, default=2)
        parser.add_argument("--name", default="x")
        return parser

    simulated = ParserValue()
    simulated.flags.update({
        "--fp16": _FlagSpec("fp16", flag_value=True), "-f": _FlagSpec("fp16", flag_value=True),
        "--no-ema": _FlagSpec("no_ema", flag_value=False), "--lr": _FlagSpec("lr", convert=float),
        "--depth": _FlagSpec("depth", convert=int), "--name": _FlagSpec("name", convert=str)})
    for argv in (["--fp16"], ["-f", "--lr", "0.5"], ["--lr=1e-3", "--depth", "4", "--no-ema"],
                 ["--name", "resnet", "--depth=7"], ["--depth", "3", "--depth", "5"]):
        given = SequenceValue("list", StringValue(None), tuple(StringValue(word) for word in argv))
        parsed = _parsed_argv(simulated, given)
        namespace = vars(real().parse_args(argv))
        assert parsed is not None, argv
        for dest, value in parsed.items():
            assert value.const == namespace[dest] and type(value.const) is type(namespace[dest]), (argv, dest)


def test_parse_args_with_an_empty_list_gives_the_defaults():
    source = HALF_FLAG.format(flag='action="store_true", default=True').replace("parse_args()", "parse_args([])")
    assert codes(source) == [("TTL401", 13)]


def test_a_required_or_positional_option_is_unknown():
    for flag in ('action="store_true", default=True, required=True',):
        assert findings(HALF_FLAG.format(flag=flag)) == []
    positional = HALF_FLAG.format(flag="type=int").replace('add_argument("--fp16", type=int)',
                                                             'add_argument("fp16", type=int)')
    assert findings(positional) == []


CHOICE = """\
import argparse
import torch
import torch.nn as nn


def get_cast_dtype(precision):
    cast_dtype = None
    if precision == "bf16":
        cast_dtype = torch.bfloat16
    elif precision in ("fp16", "half"):
        cast_dtype = torch.float16
    return cast_dtype


def main():
    parser = argparse.ArgumentParser()
    group = parser.add_argument_group("precision")
    group.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="{default}")
    args = parser.parse_args()
    cast_dtype = get_cast_dtype(args.precision)
    encoder = nn.Linear(6, 3)
    if cast_dtype is not None:
        encoder = encoder.to(dtype=cast_dtype)
    return encoder(torch.randn(2, 6))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("default, expected", [("fp16", True), ("bf16", True), ("fp32", False)])
def test_a_string_option_picks_the_dtype_through_a_helper(default, expected):
    found = findings(CHOICE.format(default=default))
    if expected:
        assert [(c, line) for c, line, _ in found] == [("TTL401", 24)]
        assert found[0][2].startswith(f"With the default configuration (--precision='{default}')")
    else:
        assert found == []


STORED_BY_HELPER = """\
import argparse
import torch
import torch.nn as nn


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", type=int, default={default})
    parser.add_argument("--dim", type=int, default=6)
    return parser


def setup(args):
    args.dtype = torch.float16 if args.fp16 else torch.float32


def build(args):
    return nn.Linear(args.dim, 2).to(args.dtype)


def main():
    args = get_parser().parse_args()
    setup(args)
    model = build(args)
    x = torch.randn(3, args.dim)
    return model(x)


if __name__ == "__main__":
    main()
"""


def test_a_value_stored_on_args_by_a_helper_is_read_elsewhere():
    assert codes(STORED_BY_HELPER.format(default=1)) == [("TTL401", 26)]
    assert findings(STORED_BY_HELPER.format(default=0)) == []


NESTED_DICT = """\
import torch
import torch.nn as nn

CONFIG = {{"model": {{"hidden": 8, "precision": "{precision}"}}, "data": {{"features": 4}}}}


def build_model(cfg):
    dtype = getattr(torch, cfg["model"]["precision"])
    return nn.Sequential(nn.Linear(cfg["data"]["features"], cfg["model"]["hidden"]), nn.ReLU()).to(dtype)


model = build_model(CONFIG)
out = model(torch.randn(2, CONFIG["data"]["features"]))
"""


def test_a_nested_config_dict_names_the_dtype_of_a_factory_model():
    found = findings(NESTED_DICT.format(precision="float64"))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 13)]
    assert not found[0][2].startswith("With the default configuration")  # a fact of the program
    assert findings(NESTED_DICT.format(precision="float32")) == []


DICT_GET = """\
import torch
import torch.nn as nn

cfg = dict(model=dict(width=4), {fp16})


def train(model, cfg):
    if cfg.get("fp16", None) is not None:
        model = model.half()
    return model(torch.randn(2, 4))


train(nn.Linear(4, 4), cfg)
"""


def test_dict_get_of_a_known_key():
    assert codes(DICT_GET.format(fp16="fp16=dict(loss_scale=512.0)")) == [("TTL401", 10)]
    assert findings(DICT_GET.format(fp16="seed=0")) == []


DATACLASS = """\
from dataclasses import dataclass
import torch
import torch.nn as nn


@dataclass
class TrainConfig:
    channels: int = 3
    fp16: bool = {fp16}


def create_model(cfg: TrainConfig) -> nn.Module:
    model = nn.Conv2d(cfg.channels, 4, 3)
    if cfg.fp16:
        model = model.half()
    return model


cfg = TrainConfig()
out = create_model(cfg)(torch.rand(1, cfg.channels, 8, 8))
"""


def test_a_dataclass_config_default():
    assert codes(DATACLASS.format(fp16="True")) == [("TTL401", 20)]
    assert findings(DATACLASS.format(fp16="False")) == []


NAMESPACE = """\
from types import SimpleNamespace
import torch
import torch.nn as nn

cfg = SimpleNamespace(half={half}, width=5)
net = nn.Linear(cfg.width, 1)
if cfg.half:
    net.half()
pred = net(torch.randn(3, cfg.width))
"""


def test_a_simple_namespace_config():
    found = findings(NAMESPACE.format(half="True"))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 9)]
    assert not found[0][2].startswith("With the default configuration")
    assert findings(NAMESPACE.format(half="False")) == []


REGISTRY = """\
import argparse
import torch
import torch.nn as nn


def double_net(n):
    return nn.Linear(n, 2).double()


def plain_net(n):
    return nn.Linear(n, 2)


MODELS = {{"double": double_net, "plain": plain_net}}
parser = argparse.ArgumentParser()
parser.add_argument("--model", default="{name}", choices=sorted(MODELS))
args = parser.parse_args()
model = MODELS[args.model](3)
out = model(torch.randn(5, 3))
"""


def test_a_registry_entry_picked_by_an_option():
    found = findings(REGISTRY.format(name="double"))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 19)]
    assert "--model='double'" in found[0][2]
    assert findings(REGISTRY.format(name="plain")) == []


PIPELINE = """\
import numpy as np
import torch
import torch.nn as nn


class Compose:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x


def to_tensor(img):
    return torch.from_numpy(img)


def to_float(img):
    return img.float() / 255.0


transform = Compose([{steps}])
conv = nn.Conv2d(3, 4, 3)
img = np.zeros((1, 3, 8, 8), dtype=np.uint8)
out = conv(transform(img))
"""


def test_a_pipeline_of_callables_missing_its_cast():
    assert codes(PIPELINE.format(steps="to_tensor")) != []
    assert findings(PIPELINE.format(steps="to_tensor, to_float")) == []


COLLATE = """\
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def collate(batch):
    rows = np.stack(batch)
    return torch.tensor(rows{dtype})


data = [np.zeros(6) for _ in range(10)]
loader = DataLoader(data, batch_size=4, collate_fn=collate)
model = nn.Linear(6, 1)
for x in loader:
    y = model(x)
"""


def test_a_collate_function_that_keeps_float64():
    assert codes(COLLATE.format(dtype="")) == [("TTL401", 16)]
    assert findings(COLLATE.format(dtype=", dtype=torch.float32")) == []


UNCALLED = """\
import torch
import torch.nn as nn


def run(args):
    model = nn.Linear(4, 2)
    if args.fp16:
        model = model.half()
    return model(torch.randn(2, 4))
"""


def test_args_never_given_stay_unknown():
    assert findings(UNCALLED) == []


MAIN_GUARD = """\
import numpy as np
import torch
import torch.nn as nn


def main():
    {setting}
    model = nn.Linear(3, 1)
    x = torch.from_numpy(np.zeros((2, 3), dtype=np.float32))
    return model(x)


if __name__ == "__main__":
    main()
"""


def test_the_main_guard_runs_so_its_calls_are_certain():
    assert codes(MAIN_GUARD.format(setting="torch.set_default_dtype(torch.float64)")) == [("TTL401", 10)]
    assert findings(MAIN_GUARD.format(setting="torch.set_default_dtype(torch.float32)")) == []


def test_folded_comparisons():
    fp16 = StringValue("fp16")
    assert folded_comparison(fp16, "==", StringValue("fp16")).const is True
    assert folded_comparison(fp16, "!=", StringValue("fp16")).const is False
    assert folded_comparison(ScalarValue("int", 1), "==", ScalarValue("bool", True)).const is True
    assert folded_comparison(fp16, "in", SequenceValue("tuple", fp16, (StringValue("bf16"), fp16))).const is True
    assert folded_comparison(StringValue(None), "==", fp16) is None
    assert folded_comparison(ScalarValue("float", 0.1), "==", ScalarValue("float", 0.1)) is None
    assert folded_comparison(NoneValue(), "==", NoneValue()).const is True
    # orderings of known ints and strings, as Python orders them; never floats, None or mixed kinds
    for a, op, b in ((14, ">", 10), (8, ">", 10), (3, "<=", 3), (2, ">=", 5), (-1, "<", 0), (True, ">", 0)):
        left = ScalarValue("bool" if isinstance(a, bool) else "int", a)
        assert folded_comparison(left, op, ScalarValue("int", b)).const is eval(f"{a!r} {op} {b!r}")
    assert folded_comparison(StringValue("b"), "<", StringValue("a")).const is False
    assert folded_comparison(ScalarValue("float", 0.5), "<", ScalarValue("int", 1)) is None
    assert folded_comparison(NoneValue(), "<", ScalarValue("int", 1)) is None
    assert folded_comparison(StringValue("a"), "<", ScalarValue("int", 1)) is None
    assert folded_comparison(ScalarValue("int", None), ">", ScalarValue("int", 1)) is None


def test_assumption_note_names_paths_and_sizes_for_shape_rules():
    assumptions = {"--half=True": "path", "--img-size=64": "size"}
    assert assumption_note(assumptions, False) == "With the default configuration (--half=True): "
    assert assumption_note(assumptions, True) == "With the default configuration (--half=True, --img-size=64): "
    many = {f"--o{i}=1": "path" for i in range(5)}
    assert assumption_note(many, False).endswith("and 2 more): ")
    assert assumption_note({}, True) == ""


IMAGE_SIZE = """\
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--img-size", type=int, default={size})
args = parser.parse_args()
conv = nn.Conv2d(1, 8, 3, padding=1)
fc = nn.Linear(8 * 16 * 16, 3)
x = F.max_pool2d(F.relu(conv(torch.rand(2, 1, args.img_size, args.img_size))), 2)
out = fc(torch.flatten(x, 1))
"""


def test_a_size_option_reaches_a_layer_sized_for_another_and_is_named():
    found = findings(IMAGE_SIZE.format(size=64))
    assert [(c, line) for c, line, _ in found] == [("TTL502", 12)]
    assert found[0][2].startswith("With the default configuration (--img-size=64)")
    assert findings(IMAGE_SIZE.format(size=32)) == []


FILTER_HELPER = """\
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F


def ngram_filter(n):
    return torch.eye(n).unsqueeze(0).unsqueeze(0){cast}


parser = argparse.ArgumentParser()
parser.add_argument("--fp16", type=int, default=1)
args = parser.parse_args()
lm = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 10))
if args.fp16:
    lm = lm.half()
probs = lm(torch.randint(0, 10, (2, 5))).softmax(-1).unsqueeze(1)
term = F.conv2d(probs, ngram_filter(2))
"""


@pytest.fixture(scope="module")
def torch_raised():
    """What the torch installed here raises running the programs whose findings quote it ("" for
    a twin that runs), in one subprocess."""
    return run_in_torch({
        "filter_helper:bad": FILTER_HELPER.format(cast=""),
        "filter_helper:good": FILTER_HELPER.format(cast=".half()"),
        "criterion_factory:bad": CRITERION_FACTORY.format(cast=""),
        "criterion_factory:good": CRITERION_FACTORY.format(cast=".float()"),
        "hidden_factory:bad": HIDDEN_FACTORY.format(make="torch.tensor(np.random.randn(layers, batch, size))"),
        "hidden_factory:good": HIDDEN_FACTORY.format(make="torch.randn(layers, batch, size)"),
    })


def quotes_torch(message, name, torch_raised):
    """The bad program fails as TTL401 claims, the finding quotes what torch raised, the twin runs."""
    bad = torch_raised[name + ":bad"]
    return (raised_as_said("TTL401", AsClaimed("RuntimeError"), bad) and quotes_what_torch_raised(message, bad)
            and torch_raised[name + ":good"] == "")


def test_a_constant_built_by_a_helper_next_to_half_activations(torch_raised):
    found = findings(FILTER_HELPER.format(cast=""))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 18)]
    # A float16 input to a convolution without a bias is refused by a kernel the CPU picks (oneDNN
    # where it has float16 instructions), each wording it its own way: the finding quotes none.
    bad = torch_raised["filter_helper:bad"]
    assert raised_as_said("TTL401", AsClaimed("RuntimeError"), bad) and torch_raised["filter_helper:good"] == ""
    assert quoted_wordings(found[0][2]) == [], found[0][2]
    assert found[0][2].startswith("With the default configuration (--fp16=1)")
    assert findings(FILTER_HELPER.format(cast=".half()")) == []


LABEL_FACTORY = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["car", "person", "bike"]


def make_targets(annotations):
    ids = [CLASSES.index(a["label"]) for a in annotations]
    return torch.{ctor}(ids)


anns = [{{"label": CLASSES[i % 3]}} for i in range(6)]
scores = nn.Linear(4, 3)(torch.randn(6, 4))
loss = F.cross_entropy(scores, make_targets(anns))
"""


def test_a_label_factory_using_the_legacy_constructor():
    assert codes(LABEL_FACTORY.format(ctor="Tensor")) == [("TTL207", 15)]
    assert findings(LABEL_FACTORY.format(ctor="tensor")) == []


AUGMENT = """\
import argparse
import numpy as np
import torch
import torch.nn as nn


def add_noise(x):
    return x + torch.from_numpy(np.random.normal(0.0, 0.1, size=tuple(x.shape)))


AUGMENTATIONS = {{"noise": add_noise, "none": lambda x: x}}
parser = argparse.ArgumentParser()
parser.add_argument("--aug", default="{aug}")
args = parser.parse_args()
model = nn.Linear(6, 1)
pred = model(AUGMENTATIONS[args.aug](torch.randn(4, 6)))
"""


def test_an_augmentation_picked_by_an_option_that_promotes_to_float64():
    found = findings(AUGMENT.format(aug="noise"))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 16)]
    assert found[0][2].startswith("With the default configuration (--aug='noise')")
    assert findings(AUGMENT.format(aug="none")) == []


KWARGS_FACTORY = """\
import argparse
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width, double=False):
        super().__init__()
        self.fc = nn.Linear(width, 2)
        if double:
            self.fc = self.fc.double()

    def forward(self, x):
        return self.fc(x)


parser = argparse.ArgumentParser()
parser.add_argument("--double", action="store_true", default={double})
config = vars(parser.parse_args())
model_cfg = {{"width": 4, "double": config["double"]}}
model = Net(**model_cfg)
out = model(torch.randn(3, 4))
"""


def test_vars_of_the_namespace_and_a_factory_called_with_a_config_dict():
    found = findings(KWARGS_FACTORY.format(double=True))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 14)]
    assert found[0][2].startswith("With the default configuration (--double=True)")
    assert findings(KWARGS_FACTORY.format(double=False)) == []


CRITERION_FACTORY = """\
import numpy as np
import torch
import torch.nn as nn


def class_weights(labels, n_classes):
    counts = np.bincount(labels, minlength=n_classes)
    return torch.from_numpy(counts.sum() / (n_classes * np.maximum(counts, 1))){cast}


def build_criterion(labels, n_classes, balanced=True):
    if balanced:
        return nn.CrossEntropyLoss(weight=class_weights(labels, n_classes))
    return nn.CrossEntropyLoss()


labels = np.array([0, 0, 1, 2, 0])
criterion = build_criterion(labels, 3)
loss = criterion(nn.Linear(4, 3)(torch.randn(5, 4)), torch.from_numpy(labels))
"""


def test_a_criterion_factory_with_numpy_class_weights(torch_raised):
    found = findings(CRITERION_FACTORY.format(cast=""))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 19)]
    assert quotes_torch(found[0][2], "criterion_factory", torch_raised), (found[0][2], torch_raised)
    assert findings(CRITERION_FACTORY.format(cast=".float()")) == []


OVERRIDDEN = """\
import argparse
import json
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--fp16", action="store_true", default=True)
{before}
args = parser.parse_args()
cfg = json.load(open("config.json"))
{after}
model = nn.Linear(4, 2)
if args.fp16:
    model = model.half()
y = model(torch.randn(2, 4))
"""


@pytest.mark.parametrize("before, after", [
    ("parser.set_defaults(**json.load(open('defaults.json')))", ""),
    ("", "args.__dict__.update(cfg)"),
    ("", "vars(args).update(cfg)"),
    ("", "for k, v in cfg.items():\n    setattr(args, k, v)"),
    ("", "args.fp16 = cfg['fp16']"),
    ("", "args = argparse.Namespace(**cfg)"),
])
def test_defaults_overridden_from_a_config_file_are_unknown(before, after):
    assert findings(OVERRIDDEN.format(before=before, after=after)) == []


def test_set_defaults_with_known_values_changes_the_default():
    source = OVERRIDDEN.format(before="parser.set_defaults(fp16=False)", after="")
    assert findings(source) == []
    source = OVERRIDDEN.format(before="", after="").replace("default=True", "default=False").replace(
        "args = parser.parse_args()", "parser.set_defaults(fp16=True)\nargs = parser.parse_args()")
    assert codes(source) != []


HIDDEN_FACTORY = """\
import numpy as np
import torch
import torch.nn as nn


def init_hidden(layers, batch, size):
    return {make}


rnn = nn.GRU(2, 6, batch_first=True)
x = torch.randn(3, 5, 2)
y, _ = rnn(x, init_hidden(1, 3, 6))
"""


def test_a_hidden_state_factory_drawing_with_numpy(torch_raised):
    found = findings(HIDDEN_FACTORY.format(make="torch.tensor(np.random.randn(layers, batch, size))"))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 12)]
    assert quotes_torch(found[0][2], "hidden_factory", torch_raised), (found[0][2], torch_raised)
    assert findings(HIDDEN_FACTORY.format(make="torch.randn(layers, batch, size)")) == []


VISION_PIPELINE = """\
import numpy as np
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


def scale(x):
    return x * 2.0


class Frames(Dataset):
    def __init__(self, transform):
        self.transform = transform
        self.frames = {frames}

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, i):
        return self.transform(self.frames[i])


tf = transforms.Compose([transforms.ToTensor(), transforms.Lambda(scale), transforms.Normalize((0.5,), (0.5,))])
conv = nn.Conv2d(3, 4, 3)
for x in DataLoader(Frames(tf), batch_size=2):
    out = conv(x)
"""


@pytest.mark.parametrize("frames, expected", [
    ("np.random.rand(6, 8, 8, 3)", True),  # ToTensor keeps float64 and does not scale
    ("np.random.randint(0, 256, (6, 8, 8, 3), dtype=np.uint8)", False),  # uint8 becomes float32
    ("np.random.rand(6, 8, 8, 3).astype(np.float32)", False),
    ("load_frames()", False),  # unknown
])
def test_a_torchvision_pipeline_in_a_dataset(frames, expected):
    found = codes(VISION_PIPELINE.format(frames=frames))
    assert found == ([("TTL401", 26)] if expected else [])


def test_a_conversion_step_switched_on_by_an_option():
    source = """\
    import argparse
    import numpy as np
    import torch
    import torch.nn as nn
    from torchvision import transforms

    parser = argparse.ArgumentParser()
    parser.add_argument("--half", action="store_true", default={half})
    args = parser.parse_args()
    steps = [transforms.ToTensor()]
    if args.half:
        steps = [transforms.ToTensor(), transforms.ConvertImageDtype(torch.float16)]
    tf = transforms.Compose(steps)
    out = nn.Conv2d(3, 4, 3)(tf(np.zeros((8, 8, 3), dtype=np.uint8)).unsqueeze(0))
    """
    found = findings(source.format(half=True))
    assert [(c, line) for c, line, _ in found] == [("TTL401", 14)]
    assert found[0][2].startswith("With the default configuration (--half=True)")
    assert findings(source.format(half=False)) == []


ENVIRONMENT = """\
import os
import torch

DEVICE = os.environ.get("DEVICE", "cpu")
counts = torch.tensor([[1, 2], [3, 4]])
if DEVICE == "cuda":
    counts = counts.cuda()
pairs = torch.matmul(counts, counts)
"""


def test_an_environment_variable_is_not_a_default_path():
    # the script runs on the GPU when DEVICE=cuda: the CUDA branch stays possible (TTL251)
    assert codes(ENVIRONMENT) == [("TTL251", 8)]


def test_a_default_converted_or_computed_keeps_its_name():
    source = HALF_FLAG.format(flag="type=int, default=1").replace("if args.fp16:", "if bool(args.fp16 * 2):")
    found = findings(source)
    assert [(c, line) for c, line, _ in found] == [("TTL401", 13)]
    assert found[0][2].startswith("With the default configuration (--fp16=1)")


DEVICE_OPTION = """\
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument({option})
args = parser.parse_args()
counts = torch.tensor([[1, 2], [3, 4]])
if {test}:
    counts = counts.cuda()
pairs = torch.matmul(counts, counts)
"""


@pytest.mark.parametrize("option, test", [
    ('"--device", default="cpu"', 'args.device == "cuda"'),
    ('"--cuda", action="store_true"', "args.cuda"),
    ('"--no-cuda", action="store_true", default=True', "not args.no_cuda"),
    ('"--backend", default="cpu"', 'args.backend != "cpu"'),
])
def test_an_option_picking_the_device_keeps_both_devices_possible(option, test):
    assert codes(DEVICE_OPTION.format(option=option, test=test)) == [("TTL251", 10)]


BUILD_FROM_CFG = """\
import torch
import torch.nn as nn


class HalfNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, 2).half()

    def forward(self, x):
        return self.fc(x)


class PlainNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, 2)

    def forward(self, x):
        return self.fc(x)


MODELS = {{"half": HalfNet, "plain": PlainNet}}


def build_from_cfg(cfg):
    args = cfg.copy()
    obj_type = args.pop("type")
    return MODELS[obj_type](**args)


model = build_from_cfg(dict(type="{kind}", width=4))
out = model(torch.randn(3, 4))
"""


def test_a_registry_built_from_a_config_dict_with_its_type_popped():
    assert codes(BUILD_FROM_CFG.format(kind="half")) == [("TTL401", 11)]
    assert findings(BUILD_FROM_CFG.format(kind="plain")) == []


STAR_PIPELINE = """\
import torch
import torch.nn as nn


def flatten(img):
    return img.reshape(img.shape[0], -1)


def to_float(img):
    return img.float() / 255.0


def pipeline(*steps):
    def run(x):
        for step in steps:
            x = step(x)
        return x
    return run


PREPROCESS = {{"raw": pipeline(flatten), "scaled": pipeline(to_float, flatten)}}
model = nn.Linear(16, 2)
out = model(PREPROCESS["{name}"](torch.zeros(3, 4, 4, dtype=torch.uint8)))
"""


def test_closures_made_by_a_pipeline_factory_keep_their_own_steps():
    assert codes(STAR_PIPELINE.format(name="raw")) == [("TTL202", 23)]
    assert findings(STAR_PIPELINE.format(name="scaled")) == []


FILTERED_CONFIG = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width, double=False):
        super().__init__()
        self.fc = nn.Linear(width, 2).double() if double else nn.Linear(width, 2)

    def forward(self, x):
        return self.fc(x)


cfg = dict(type="Net", width=4, double={double})
kwargs = {{k: v for k, v in cfg.items() if k != "type"}}
out = Net(**kwargs)(torch.randn(3, 4))
"""


def test_a_config_dict_filtered_by_a_comprehension_keeps_its_keys():
    assert codes(FILTERED_CONFIG.format(double=True)) == [("TTL401", 11)]
    assert findings(FILTERED_CONFIG.format(double=False)) == []
