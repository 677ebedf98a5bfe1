"""`duration_words`: seconds as a reader says them ("about 40 seconds", "3 minutes", "1 hour 5 minutes")."""
from django import template

register = template.Library()


@register.filter
def duration_words(seconds) -> str:
    if seconds is None or seconds == "":
        return "–"
    total = max(0, round(float(seconds)))
    if total < 60:
        return f"{total} second{'s' if total != 1 else ''}"
    minutes, _ = divmod(total, 60)
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        rest = f" {minutes} minute{'s' if minutes != 1 else ''}" if minutes else ""
        return f"{hours} hour{'s' if hours != 1 else ''}{rest}"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} hour{'s' if hours != 1 else ''}"
