"""Suite-wide settings: hypothesis never fails on timing (a loaded CI machine is slow)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "pbem", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile("pbem")
