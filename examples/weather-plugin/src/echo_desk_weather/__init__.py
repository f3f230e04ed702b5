"""An example Echo Desk plugin: ``get_weather``, the current weather for a city."""

from echo_desk_weather.tool import DEFAULT_BASE_URL, WeatherTool

__all__ = ["DEFAULT_BASE_URL", "WeatherTool"]
