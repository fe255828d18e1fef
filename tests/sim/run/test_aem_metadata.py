"""The metadata an exported AEM declares (sim.run.aem.aem_text), as CCSDS 504.0-B-2 spells its values:
CENTER_NAME from SANA's orbit-centre names (upper case: EARTH), the frames EME2000 and SC_BODY_1, UTC."""

from __future__ import annotations

import re

import pytest

from sim.run.aem import aem_text

WANTED = {"CENTER_NAME": "EARTH", "REF_FRAME_A": "EME2000", "REF_FRAME_B": "SC_BODY_1", "TIME_SYSTEM": "UTC"}


@pytest.mark.parametrize("xml", [False, True])
def test_an_exported_aem_names_earth_eme2000_sc_body_1_and_utc_as_the_standard_spells_them(xml):
    text = aem_text([0.0, 1.0], [[0.0, 0.0, 0.0, 1.0]] * 2, xml=xml)
    for key, value in WANTED.items():
        pattern = rf"<{key}>([^<]*)</{key}>" if xml else rf"^{key}\s*=\s*(\S+)\s*$"
        assert re.findall(pattern, text, flags=re.MULTILINE) == [value], key
