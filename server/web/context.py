from django.conf import settings


def site(request):
    """The language switcher's choices on every page."""
    return {"site_languages": settings.LANGUAGES}
