// Material's inline script of partials/javascripts/content.html, from a file for the CSP (tests/test_csp.py keeps it equal)
var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))
