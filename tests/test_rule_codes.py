"""rule_codes.py reads the codes from file names; they must be exactly the registered rules."""
from torchtype_lint.model.rule_codes import is_known_prefix, known_codes
from torchtype_lint.rules.base import all_rules


def test_the_file_names_give_exactly_the_registered_codes():
    assert known_codes() == {rule.code for rule in all_rules()}


def test_prefixes():
    assert is_known_prefix("TTL") and is_known_prefix("TTL5") and is_known_prefix("TTL101")
    assert not is_known_prefix("TTL999") and not is_known_prefix("TTL8")
