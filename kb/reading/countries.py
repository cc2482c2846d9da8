"""Country codes accepted for an event's country.

The PGN standard's list (seed-000 §7.2, Tabla LXXI: 152 codes, e.g. ``OST`` Austria, ``NET`` The
Internet) and the IOC/FIDE codes modern files use (``USA``, ``RUS``, ``NED`` …). A code is taken
from ``EventCountry``, from the last word of ``Site`` or of the event's name ("New York City, NY
USA", "IBM Man-Machine, New York USA") only when it is in this table, so a word never becomes a
country by accident; failing that, a chess city named in the site or the event name gives its
country (``CITY_COUNTRIES``: "New York" -> USA), so ``positions-in-country USA`` finds the
Kasparov–Deep Blue games whose Site is only the game number.
"""

from __future__ import annotations

import re

PGN_STANDARD_CODES: dict[str, str] = {
    "AFG": "Afghanistan",
    "AIR": "Aboard aircraft",
    "ALB": "Albania",
    "ALG": "Algeria",
    "AND": "Andorra",
    "ANG": "Angola",
    "ANT": "Antigua",
    "ARG": "Argentina",
    "ARM": "Armenia",
    "ATA": "Antarctica",
    "AUS": "Australia",
    "AZB": "Azerbaijan",
    "BAN": "Bangladesh",
    "BAR": "Bahrain",
    "BEL": "Belgium",
    "BER": "Bermuda",
    "BHM": "Bahamas",
    "BIH": "Bosnia and Herzegovina",
    "BLA": "Belarus",
    "BLG": "Bulgaria",
    "BLZ": "Belize",
    "BOL": "Bolivia",
    "BRB": "Barbados",
    "BRS": "Brazil",
    "BRU": "Brunei",
    "BSW": "Botswana",
    "CAN": "Canada",
    "CHI": "Chile",
    "COL": "Columbia",
    "CRA": "Costa Rica",
    "CRO": "Croatia",
    "CSR": "Czechoslovakia",
    "CUB": "Cuba",
    "CYP": "Cyprus",
    "DEN": "Denmark",
    "DOM": "Dominican Republic",
    "ECU": "Ecuador",
    "EGY": "Egypt",
    "ENG": "England",
    "ESP": "Spain",
    "EST": "Estonia",
    "FAI": "Faroe Islands",
    "FIJ": "Fiji",
    "FIN": "Finland",
    "FRA": "France",
    "GAM": "Gambia",
    "GCI": "Guernsey-Jersey",
    "GEO": "Georgia",
    "GER": "Germany",
    "GHA": "Ghana",
    "GRC": "Greece",
    "GUA": "Guatemala",
    "GUY": "Guyana",
    "HAI": "Haiti",
    "HKG": "Hong Kong",
    "HON": "Honduras",
    "HUN": "Hungary",
    "IND": "India",
    "IRL": "Ireland",
    "IRN": "Iran",
    "IRQ": "Iraq",
    "ISD": "Iceland",
    "ISR": "Israel",
    "ITA": "Italy",
    "IVO": "Ivory Coast",
    "JAM": "Jamaica",
    "JAP": "Japan",
    "JRD": "Jordan",
    "JUG": "Yugoslavia",
    "KAZ": "Kazakhstan",
    "KEN": "Kenya",
    "KIR": "Kyrgyzstan",
    "KUW": "Kuwait",
    "LAT": "Latvia",
    "LEB": "Lebanon",
    "LIB": "Libya",
    "LIC": "Liechtenstein",
    "LTU": "Lithuania",
    "LUX": "Luxembourg",
    "MAL": "Malaysia",
    "MAU": "Mauritania",
    "MEX": "Mexico",
    "MLI": "Mali",
    "MLT": "Malta",
    "MNC": "Monaco",
    "MOL": "Moldova",
    "MON": "Mongolia",
    "MOZ": "Mozambique",
    "MRC": "Morocco",
    "MRT": "Mauritius",
    "MYN": "Myanmar",
    "NCG": "Nicaragua",
    "NET": "The Internet",
    "NIG": "Nigeria",
    "NLA": "Netherlands Antilles",
    "NLD": "Netherlands",
    "NOR": "Norway",
    "NZD": "New Zealand",
    "OST": "Austria",
    "PAK": "Pakistan",
    "PAL": "Palestine",
    "PAN": "Panama",
    "PAR": "Paraguay",
    "PER": "Peru",
    "PHI": "Philippines",
    "PNG": "Papua New Guinea",
    "POL": "Poland",
    "POR": "Portugal",
    "PRC": "People's Republic of China",
    "PRO": "Puerto Rico",
    "QTR": "Qatar",
    "RIN": "Indonesia",
    "ROM": "Romania",
    "RUS": "Russia",
    "SAF": "South Africa",
    "SAL": "El Salvador",
    "SCO": "Scotland",
    "SEA": "At Sea",
    "SEN": "Senegal",
    "SEY": "Seychelles",
    "SIP": "Singapore",
    "SLV": "Slovenia",
    "SMA": "San Marino",
    "SPC": "Aboard spacecraft",
    "SRI": "Sri Lanka",
    "SUD": "Sudan",
    "SUR": "Surinam",
    "SVE": "Sweden",
    "SWZ": "Switzerland",
    "SYR": "Syria",
    "TAI": "Thailand",
    "TMT": "Turkmenistan",
    "TRK": "Turkey",
    "TTO": "Trinidad and Tobago",
    "TUN": "Tunisia",
    "UAE": "United Arab Emirates",
    "UGA": "Uganda",
    "UKR": "Ukraine",
    "UNK": "Unknown",
    "URU": "Uruguay",
    "USA": "United States of America",
    "UZB": "Uzbekistan",
    "VEN": "Venezuela",
    "VGB": "British Virgin Islands",
    "VIE": "Vietnam",
    "VUS": "U.S. Virgin Islands",
    "WLS": "Wales",
    "YEM": "Yemen",
    "YUG": "Yugoslavia",
    "ZAM": "Zambia",
    "ZIM": "Zimbabwe",
    "ZRE": "Zaire",
}

#: Codes used by FIDE and the IOC today that the PGN standard's list lacks or spells otherwise.
MODERN_CODES: dict[str, str] = {
    "AUT": "Austria",
    "AZE": "Azerbaijan",
    "BLR": "Belarus",
    "BRA": "Brazil",
    "BUL": "Bulgaria",
    "CHN": "China",
    "CZE": "Czech Republic",
    "FID": "FIDE",
    "GRE": "Greece",
    "INA": "Indonesia",
    "IRI": "Iran",
    "ISL": "Iceland",
    "JPN": "Japan",
    "KOR": "South Korea",
    "MDA": "Moldova",
    "MGL": "Mongolia",
    "MKD": "North Macedonia",
    "MNE": "Montenegro",
    "NED": "Netherlands",
    "NZL": "New Zealand",
    "QAT": "Qatar",
    "ROU": "Romania",
    "RSA": "South Africa",
    "SLO": "Slovenia",
    "SRB": "Serbia",
    "SUI": "Switzerland",
    "SVK": "Slovakia",
    "SWE": "Sweden",
    "TUR": "Turkey",
}

COUNTRY_CODES: dict[str, str] = {**PGN_STANDARD_CODES, **MODERN_CODES}

#: Cities that held chess events, as written in sites and event names (lower case, accents as
#: usually written, both spellings where two are common) -> country code (in ``COUNTRY_CODES``).
CITY_COUNTRIES: dict[str, str] = {
    "new york": "USA", "philadelphia": "USA", "chicago": "USA", "san francisco": "USA", "los angeles": "USA",
    "saint louis": "USA", "st. louis": "USA", "st louis": "USA", "boston": "USA", "washington": "USA",
    "new orleans": "USA", "palo alto": "USA", "cambridge springs": "USA",
    "london": "ENG", "hastings": "ENG", "manchester": "ENG", "paris": "FRA", "cannes": "FRA",
    "madrid": "ESP", "barcelona": "ESP", "linares": "ESP", "leon": "ESP", "león": "ESP", "pamplona": "ESP",
    "budapest": "HUN", "leiden": "NED", "amsterdam": "NED", "wijk aan zee": "NED", "groningen": "NED",
    "moscow": "RUS", "st. petersburg": "RUS", "st petersburg": "RUS", "saint petersburg": "RUS",
    "berlin": "GER", "nuremberg": "GER", "nürnberg": "GER", "nurnberg": "GER", "dortmund": "GER",
    "baden-baden": "GER", "hamburg": "GER", "munich": "GER", "münchen": "GER", "vienna": "AUT", "wien": "AUT",
    "reykjavik": "ISL", "reykjavík": "ISL", "buenos aires": "ARG", "zurich": "SUI", "zürich": "SUI",
    "belgrade": "SRB", "havana": "CUB", "tel aviv": "ISR", "prague": "CZE", "praha": "CZE",
    "warsaw": "POL", "bucharest": "ROU", "sofia": "BUL", "athens": "GRE", "rome": "ITA", "milan": "ITA",
    "manila": "PHI", "tokyo": "JPN", "beijing": "CHN", "shanghai": "CHN", "chennai": "IND", "istanbul": "TUR",
    "copenhagen": "DEN", "stockholm": "SWE", "oslo": "NOR", "stavanger": "NOR", "helsinki": "FIN",
    "montreal": "CAN", "toronto": "CAN", "mexico city": "MEX", "edinburgh": "SCO", "glasgow": "SCO",
}
_CITY = re.compile(r"(?<![\w])(" + "|".join(re.escape(city) for city in sorted(CITY_COUNTRIES, key=len, reverse=True))
                   + r")(?![\w])")
_CODES_BY_NAME: dict[str, str] = {name.lower(): code for code, name in COUNTRY_CODES.items()}


def country_code(event_country: str | None, site: str | None, event_name: str | None = None) -> str | None:
    """The event's country code from ``EventCountry`` (a code or a country name), else a code ending
    ``Site`` or the event's name, else a city named in ``Site`` or the event's name."""
    if event_country and event_country.strip() not in ("?", "-"):
        text = event_country.strip()
        words = text.replace(",", " ").split()
        if words and words[-1].upper() in COUNTRY_CODES and words[-1].isupper():
            return words[-1].upper()
        code = _CODES_BY_NAME.get(text.lower())
        if code:
            return code
        if text.upper() in COUNTRY_CODES:
            return text.upper()
    for place in (site, event_name):
        words = (place or "").replace(",", " ").split()
        if words and words[-1].upper() in COUNTRY_CODES and words[-1].isupper():
            return words[-1].upper()
    for place in (site, event_name):
        match = _CITY.search((place or "").lower())
        if match:
            return CITY_COUNTRIES[match.group(1)]
    return None
