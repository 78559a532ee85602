"""Checking answers (selector.inputs): numbers as JSON or as text, choices, required keys, contradictions."""

import pytest

from selector.inputs import InputError, clean_answers


def error(catalog, answers, page="selector"):
    with pytest.raises(InputError) as info:
        clean_answers(catalog, answers, page)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{info.value.key}: ")
    return info.value
