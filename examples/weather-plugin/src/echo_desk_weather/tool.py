"""The weather tool. It imports only ``echo_desk.tools`` (the public contract) and httpx."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import httpx

from echo_desk.tools import N_, BaseTool, ErrorKind, RiskLevel, ToolError, ToolRole, get_secret

DEFAULT_BASE_URL = "https://api.openweathermap.org/data/2.5"
SECRET_KEY = "weather.api_key"
NOT_CONFIGURED = N_("API key not configured")  # the catalog shows it translated; the model reads it as is


class WeatherTool(BaseTool):
    name = "get_weather"
    description = (
        "Get the current weather for a city: temperature in °C, conditions, humidity and wind. "
        "Give the city name, optionally with a country code, e.g. 'Paris' or 'Paris,FR'."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1, "maxLength": 100, "description": "City name, e.g. 'Paris,FR'."}
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.READ
    #: It looks something up and changes nothing (what a small model may be offered for a question).
    role = ToolRole.LOOK
    timeout_seconds = 15.0
    max_retries = 1  # a read: retrying a network hiccup once is harmless
    idempotent = True
    capabilities = frozenset({"web"})
    title = N_("Weather")
    catalog_description = N_("Looks up the current weather for a city (needs an OpenWeatherMap API key).")
    translation_domain = "echo_desk_weather"

    def __init__(self, base_url: str | None = None, *, request_timeout: float = 10.0) -> None:
        # The registry creates plugins without arguments: the environment can still redirect us.
        chosen = base_url or os.environ.get("ECHO_DESK_WEATHER_URL") or DEFAULT_BASE_URL
        self.base_url = chosen.rstrip("/")
        self.request_timeout = request_timeout

    def is_ready(self) -> bool:
        return bool(get_secret(SECRET_KEY))

    def readiness_detail(self) -> str:
        return "" if self.is_ready() else NOT_CONFIGURED

    async def run(self, city: str) -> str:  # type: ignore[override]  # named arguments by design
        api_key = get_secret(SECRET_KEY)
        if not api_key:
            raise ToolError(NOT_CONFIGURED, kind=ErrorKind.DEPENDENCY)
        city = city.strip()
        if not city:
            raise ToolError("city must not be blank", kind=ErrorKind.VALIDATION)
        try:
            async with httpx.AsyncClient(timeout=self.request_timeout, trust_env=False) as client:
                response = await client.get(
                    f"{self.base_url}/weather", params={"q": city, "appid": api_key, "units": "metric"}
                )
        except httpx.TimeoutException as exc:
            raise ToolError(f"the weather service did not answer in {self.request_timeout:g} s",
                            kind=ErrorKind.TIMEOUT) from exc
        except httpx.HTTPError as exc:
            raise ToolError(f"the weather service is unreachable: {type(exc).__name__}",
                            kind=ErrorKind.DEPENDENCY) from exc
        if response.status_code == 404:
            raise ToolError(f"city not found: {city}", kind=ErrorKind.BUSINESS)
        if response.status_code in (401, 403):
            raise ToolError("the weather service refused the API key", kind=ErrorKind.DEPENDENCY)
        if response.status_code != 200:
            raise ToolError(f"the weather service answered HTTP {response.status_code}", kind=ErrorKind.DEPENDENCY)
        return _describe(city, response)


def _describe(city: str, response: httpx.Response) -> str:
    try:
        data = response.json()
        place = data.get("name") or city
        country = data.get("sys", {}).get("country", "")
        main = data["main"]
        temperature = float(main["temp"])
        conditions = ", ".join(w["description"] for w in data.get("weather", [])) or "no description"
        wind = data.get("wind", {}).get("speed")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ToolError("the weather service sent an answer we cannot read", kind=ErrorKind.DEPENDENCY) from exc
    where = f"{place}, {country}" if country else place
    text = f"{where}: {temperature:.1f} °C, {conditions}, humidity {main.get('humidity', '?')} %"
    return text + (f", wind {wind} m/s" if wind is not None else "")
