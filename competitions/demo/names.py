"""The demo league's names: its 84 teams and the teams waiting for a place."""

from __future__ import annotations

TEAM_NAMES: tuple[tuple[str, ...], ...] = (
    # Elite: the rules' own teams (§3.1.4).
    (
        "Sleigh Dogs",
        "Snowmen",
        "Cybérians",
        "Ice Crocodiles",
        "Teddy Bears",
        "Grizzlies",
        "Freezing Ass",
        "Groggs",
        "Igloos",
        "Icebergs",
        "Puck Pukers",
        "Ice Breakers",
    ),
    # D2A
    (
        "Les Culs Gelés",
        "Les Castors Rieurs",
        "Les Orignaux Fous",
        "Les Pingouins Pressés",
        "Les Harfangs",
        "Les Morses Moustachus",
        "Zamboni Drivers",
        "Slapshot Seals",
        "Penalty Box Poets",
        "Blue Line Badgers",
        "Hat Trick Hamsters",
        "Power Play Pandas",
    ),
    # D2B
    (
        "Les Caribous Câlins",
        "Les Patins Rouillés",
        "Les Crosses Tordues",
        "Les Rondelles Volantes",
        "Les Bûcherons",
        "Les Flocons Furieux",
        "Five Hole Foxes",
        "Goal Crease Geese",
        "Icing Otters",
        "Offside Owls",
        "Face-Off Ferrets",
        "Frostbite Falcons",
    ),
    # D3A
    (
        "Les Glaçons Bouillants",
        "Les Moufles Magiques",
        "Les Tuques Bleues",
        "Les Poutines Royales",
        "Les Sirops d'Érable",
        "Les Écureuils Volants",
        "Cold Feet",
        "Chilly Willies",
        "Northern Lights",
        "Polar Vortex",
        "Snow Angels",
        "Slush Puppies",
    ),
    # D3B
    (
        "Les Loups Blancs",
        "Les Ours Polaires",
        "Les Marmottes Endormies",
        "Les Chamois Agiles",
        "Les Yétis",
        "Les Bouquetins",
        "Black Ice",
        "Hoarfrost Hounds",
        "Rink Rats",
        "Mitten Mafia",
        "Toque Troopers",
        "Moose Knuckles",
    ),
    # D3C
    (
        "Les Renards Argentés",
        "Les Lynx Lunatiques",
        "Les Hiboux Hockeyeurs",
        "Les Phoques Farceurs",
        "Les Mammouths Laineux",
        "Les Avalanches",
        "Fallen Maple Leaves",
        "Snowplow Kings",
        "Hot Chocolate Heroes",
        "Sled Heads",
        "Frozen Pond Pirates",
        "Icicle Ninjas",
    ),
    # D3D
    (
        "Les Blizzards",
        "Les Tempêtes de Neige",
        "Les Grêlons",
        "Les Stalactites",
        "Les Engelures",
        "Les Doigts Gelés",
        "Les Nez Rouges",
        "Les Fondues Savoyardes",
        "Les Raclettes",
        "Les Tartiflettes",
        "Les Bonhommes de Neige",
        "Les Chasse-Neige",
    ),
)
"""Twelve teams per division, in the order of ``league.services.STANDARD_DIVISIONS``."""

WAITING_LIST: tuple[tuple[str, int], ...] = (
    ("Les Patinoires Perdues", 5),
    ("Zamboni Zombies", 7),
    ("Les Lutins du Lac", 9),
    ("Figure Skate Fugitives", 10),
)
"""Teams asking for a place next season (name, the week whose Wednesday evening they signed
up): as the season nears its end, newcomers join the waiting list (R14, R21, R24)."""
