"""The site's URLs. The API's paths are fixed by ``shared/API.md``; the error handlers answer
JSON under ``/api/`` and the site's localized pages elsewhere (``matrixhockey.errors``)."""

from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from matrixhockey import site_files

admin.site.site_header = _("Matrix Hockey administration")
admin.site.site_title = _("Matrix Hockey")
admin.site.index_title = _("League administration")

urlpatterns = [
    path("favicon.ico", site_files.favicon, name="favicon"),
    path("robots.txt", site_files.robots, name="robots"),
    path("", include("league.urls")),
    path("", include("competitions.urls")),
    path("", include("mail.urls")),
    path("referee/", include("competitions.urls_referee")),
    path("desk/season/", include("competitions.urls_desk")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/", include("league.api_urls")),
    path("api/", include("competitions.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file: the CSP allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

handler400 = "matrixhockey.errors.bad_request"
handler403 = "matrixhockey.errors.permission_denied"
handler404 = "matrixhockey.errors.page_not_found"
handler500 = "matrixhockey.errors.server_error"
