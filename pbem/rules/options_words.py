"""The words of each game option on the rules page (``REGLES`` / ``RULES``): a label per
option and, for a choice, a short phrase per allowed value, in French and English.

Keyed by option name across every game (an option that two games share means the same thing
in both); a test checks that every option of every game has its words here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from pbem.mail.render import duration

Words = tuple[str, str]
"""(French, English)."""

LABELS: dict[str, Words] = {
    # shared by every game: idle players, removals, substitutes
    "idle_warn_after": (
        "Rappel à un joueur inactif après (phases sans action)",
        "Reminder to an idle player after (phases without an action)",
    ),
    "idle_act_after": (
        "Mesure contre un joueur inactif après (phases sans action)",
        "Action against an idle player after (phases without an action)",
    ),
    "on_idle": ("Joueur inactif", "Idle player"),
    "removal_reveal": ("Rôle d'un joueur retiré de la partie", "Role of a player removed"),
    "substitute_name": ("Nom d'un remplaçant", "Name of a substitute"),
    "observers": ("Spectateurs", "Observers"),
    "absence_days": (
        "Jours d'absence déclarée permis par joueur (ABSENCE)",
        "Days of declared absence allowed per player (ABSENT)",
    ),
    "absence_mode": ("Pendant une absence déclarée", "During a declared absence"),
    "early_close": (
        "Une étape de nuit se termine dès que tous ont agi",
        "A night step ends as soon as everyone has acted",
    ),
    "early_close_day": (
        "Fin de jour anticipée quand tous ont voté",
        "Day ends early once everyone has voted",
    ),
    "reveal_all_at_end": (
        "Tous les rôles révélés à la fin",
        "Every role revealed at the end",
    ),
    "tally_min_interval": (
        "Intervalle minimal entre deux décomptes des votes",
        "Shortest time between two vote counts",
    ),
    "self_vote_allowed": ("Vote contre soi-même permis", "Voting for oneself allowed"),
    "allow_self_vote": ("Vote contre soi-même permis", "Voting for oneself allowed"),
    "vote_changes_allowed": ("Changement de vote permis", "Changing one's vote allowed"),
    "list_closed_at_night": (
        "Liste de discussion fermée la nuit",
        "Discussion list closed at night",
    ),
    "seer_result_timing": ("Réponse de la Voyante", "The Seer's answer"),
    "lovers_if_missing": (
        "Amoureux quand Cupidon ne les désigne pas",
        "Lovers when Cupid names none",
    ),
    "everyone_dead": ("Si tout le monde meurt", "If everyone dies"),
    "custom_deck": ("Cartes choisies pour la partie", "Cards chosen for the game"),
    "day_duration": ("Durée du jour", "Length of the day"),
    # Lupus in Tabula
    "deck_mode": ("Composition des cartes", "Choice of cards"),
    "specials": ("Personnages spéciaux", "Special characters"),
    "ghost_variant": ("Variante du fantôme", "Ghost variant"),
    "night_duration": ("Durée de la nuit", "Length of the night"),
    "wolves_tie": ("Égalité entre les loups", "Tie among the wolves"),
    "wolves_may_target_wolf": (
        "Les loups peuvent dévorer un loup",
        "Wolves may devour a wolf",
    ),
    "seer_pair_agreement": (
        "Le sondage partagé des deux Voyants",
        "The two Seers' shared probe",
    ),
    "owl_pick_announced": (
        "Annonce du nom désigné par le Hibou",
        "When the Owl's pick is announced",
    ),
    "myth_if_missing": (
        "Modèle du Mythomane s'il n'en choisit pas",
        "The Mythomaniac's model if he picks none",
    ),
    "parity_counts_hamster": (
        "Le Hamster compte pour la parité des loups",
        "The Hamster counts for the wolves' parity",
    ),
    "nomination_tie": ("Égalité à la nomination", "Tie at the nomination"),
    "single_nominee": ("Un seul nommé", "A single nominee"),
    "round2_tie": ("Égalité au second tour", "Tie in the second round"),
    "debate_duration": ("Durée du débat", "Length of the debate"),
    "round1_duration": ("Durée du premier tour", "Length of the first round"),
    "defence_duration": ("Durée de la défense", "Length of the defence"),
    "round2_duration": ("Durée du second tour", "Length of the second round"),
    "ghost_includes_probe_death": (
        "Le Hamster-Garou tué par le sondage du Voyant devient un fantôme",
        "The Werehamster killed by the Seer's probe becomes a ghost",
    ),
    # Loup-Garou
    "election_concurrent_with_night1": (
        "Élection du Maire pendant la première nuit",
        "Mayor's election during the first night",
    ),
    "bite_window": ("Délai de la morsure", "Time for the bite"),
    "election_window": ("Durée de l'élection du Maire", "Length of the Mayor's election"),
    "mayor_election_tie": ("Égalité à l'élection du Maire", "Tie at the Mayor's election"),
    "wolves_list_detail": (
        "Ce que les loups savent les uns des autres",
        "What wolves learn of each other",
    ),
    "night_council_duration": ("Durée du conseil des loups", "Length of the wolves' council"),
    "night_witch_duration": ("Durée du tour de la Sorcière", "Length of the Witch's turn"),
    "send_results_to_dead": (
        "Résultats envoyés aux morts",
        "Results sent to the dead",
    ),
    "thief_vote_weight": ("Poids du vote du Voleur", "Weight of the Thief's vote"),
    "thief_weight_when_bitten": (
        "Ce poids reste quand le Voleur est mordu",
        "That weight stays when the Thief is bitten",
    ),
    "wolves_tie_fallback": ("Égalité entre les loups", "Tie among the wolves"),
    "witch_self_poison": ("La Sorcière peut s'empoisonner", "The Witch may poison herself"),
    "elder_told_when_witch_saves": (
        "L'Ancien averti quand la Sorcière le sauve",
        "The Elder told when the Witch saves him",
    ),
    "notify_spied_when_empty": (
        "La Petite fille prévenue quand elle ne voit rien",
        "The Little Girl told when she sees nothing",
    ),
    "charmed_know_each_other": (
        "Les charmés se connaissent",
        "Charmed players know each other",
    ),
    "parity_counts_piper": (
        "Le Joueur de flûte compte pour la parité des loups",
        "The Piper counts for the wolves' parity",
    ),
    "idiot_after_bite": (
        "L'Idiot du village garde son pouvoir après une morsure",
        "The Village Idiot keeps his power after a bite",
    ),
    "sash_window": ("Délai pour transmettre l'écharpe", "Time to hand on the sash"),
    "mayor_tiebreak_window": (
        "Délai du Maire pour départager",
        "Time for the Mayor to break a tie",
    ),
    # Dracula
    "rounds": ("Nombre de manches", "Number of rounds"),
    "day1": ("Durée du premier jour", "Length of the first day"),
    "day": ("Durée du jour", "Length of the day"),
    "pairing": ("Délai pour former les équipes", "Time to pair up"),
    "room_choice": ("Durée du choix des pièces", "Time to choose a room"),
    "magnifier": ("Délai de la loupe", "Time for the magnifying glass"),
    "bites": ("Durée des morsures", "Time for the bites"),
    "dance_reply": ("Délai de réponse à la danse", "Time to answer a dance"),
    "dawn_curse": ("Délai de la malédiction à l'aube", "Time for the curse at dawn"),
    "final_choice": ("Durée du choix final", "Time for the final choice"),
    "flames": ("Durée des flammes", "Time for the flames"),
    "morning_not_before_scheduled": (
        "Le matin n'arrive pas avant l'heure prévue",
        "Morning never comes before its time",
    ),
    "fill_empty_seats": ("Places vides", "Empty places"),
    "private_orders_final": (
        "Un ordre privé est définitif dès qu'il est accepté (sinon : modifiable ou ANNULER"
        " jusqu'à la fin de son étape)",
        "A private order is final once accepted (otherwise: changed or CANCELled until its"
        " step ends)",
    ),
    "publish_tally": (
        "Le crépuscule donne le nombre de voix de chacun",
        "Dusk gives each player's number of votes",
    ),
    "running_tally": (
        "Décompte provisoire des voix pendant la journée",
        "Running tally of the votes during the day",
    ),
    "missed_bite": ("Morsure non donnée", "A bite not given"),
    "notify_successful_bite": (
        "Morsure réussie annoncée au vampire",
        "Vampire told of a bite that worked",
    ),
    "cursed_count": ("Nombre de maudits annoncé le matin", "Number of cursed given in the morning"),
    "bitten_vampire_gets_count": (
        "Le vampire mordu reçoit le compte",
        "A bitten vampire gets the count",
    ),
    "notify_destroyed": (
        "Le vampire qui tient le manuel du voleur apprend quels objets il a détruits",
        "A vampire holding the thief's manual is told which objects he destroyed",
    ),
    "candle_shows_paint_text": (
        "La bougie montre le texte des peintures",
        "The candle shows the painting's text",
    ),
    "candle_shows_curse_targets": (
        "La bougie montre les maudits",
        "The candle shows the cursed",
    ),
    "candle_shows_magnifier": (
        "La bougie montre qui a utilisé une loupe",
        "The candle shows who used a magnifying glass",
    ),
    "garlic_vampires_see_occupants": (
        "Un vampire pris de nausée apprend qui est dans sa pièce",
        "A nauseous vampire learns who is in his room",
    ),
    "staked_orders_apply": (
        "Les ordres d'un vampire tué d'un pieu la même nuit s'appliquent",
        "The orders of a vampire staked the same night apply",
    ),
    "dance_in_sanctuary": ("Danse possible au sanctuaire", "Dancing allowed in the sanctuary"),
    "room_objects_in_sanctuary": (
        "Ail, bougie et peinture utilisables au sanctuaire",
        "Garlic, candle and painting usable in the sanctuary",
    ),
    "key_escape_room": ("Pièce après une fuite par la clé", "Room after an escape by the key"),
    "default_flee_points": (
        "Points d'un humain qui n'a pas choisi (il fuit)",
        "Points of a human who did not choose (he flees)",
    ),
    "reveal_flame_targets": ("Cibles des flammes révélées", "Targets of the flames revealed"),
    "final_default": ("Choix final par défaut", "Final choice by default"),
    "burned_vampires_score": ("Les vampires brûlés marquent", "Burned vampires score"),
    "allow_other_player_counts": (
        "Autre nombre de joueurs permis",
        "Other numbers of players allowed",
    ),
    "paint_max_chars": (
        "Longueur maximale d'une peinture (caractères)",
        "Longest painting (characters)",
    ),
    "paint_repeat": (
        "Une peinture est montrée aux humains de sa pièce",
        "A painting is shown to the humans in its room",
    ),
    "dance_max_chars": ("Longueur maximale d'une danse (caractères)", "Longest dance (characters)"),
    "dance_replies": ("Réponses à une danse", "Replies to a dance"),
    "curse_phrases": ("Phrases de la malédiction", "Curse phrases"),
    "curse_notice": ("Malédiction annoncée", "Curse announced"),
    "curse_default": ("Maudit sans déclaration", "Cursed player who declares nothing"),
    "curse_enforcement": ("Message d'un maudit hors règle", "A cursed player's wrong message"),
    "out_of_turn_posts": ("Message hors de son tour", "Message out of turn"),
    "dracula_draw": ("Tirage de Dracula", "Drawing Dracula"),
    "telepathy_review": ("Relecture de la télépathie", "Review of telepathy"),
    # Chasse aux sorcières
    "leo_duration": ("Durée du tour de Léo", "Length of Leo's turn"),
    "coop_duration": ("Durée de la coopération", "Length of the cooperation"),
    "w1_duration": (
        "Durée du premier temps des sorcières",
        "Length of the witches' first turn",
    ),
    "w2_duration": (
        "Durée du second temps des sorcières",
        "Length of the witches' second turn",
    ),
    "lovers_told_partner_role": (
        "Les amoureux apprennent le rôle de l'autre",
        "Lovers learn each other's role",
    ),
    "mixed_lovers_victory": ("Victoire d'un couple mixte", "Victory of mixed lovers"),
    "council_submission": (
        "Nom retenu quand le conseil des Démons en envoie plusieurs",
        "The name kept when the Demons' council sends several",
    ),
    "cole_target_told_swapper": (
        "La cible de Cole apprend qui l'a échangée",
        "Cole's target learns who swapped",
    ),
    "attribute_piper_kill": (
        "Le meurtre du Joueur de flûte lui est attribué",
        "The Piper's kill is named as his",
    ),
    "prue_revenge_triggers": (
        "Ce qui déclenche la vengeance de Prue",
        "What triggers Prue's revenge",
    ),
    "revenge_window": ("Délai de la vengeance", "Time for revenge"),
    "penny_public": ("Penny connue de tous", "Penny known to all"),
    "tie_order": ("Ordre pour départager", "Order that breaks a tie"),
    "tiebreak_window": ("Délai pour départager", "Time to break a tie"),
    "penny_player": ("Joueur qui est Penny", "Player who is Penny"),
}

_RANDOM: Words = ("au hasard", "at random")
_NONE: Words = ("aucun", "none")

CHOICES: dict[str, dict[str, Words]] = {
    "absence_mode": {
        "excuse": (
            "le joueur n'est pas compté inactif",
            "the player is not counted idle",
        ),
        "extend": (
            "les échéances qui y tombent sont repoussées",
            "the deadlines falling in it are moved later",
        ),
    },
    "on_idle": {
        "offer": ("sa place est offerte à un remplaçant", "his seat is offered to a substitute"),
        "ask": ("le meneur est consulté", "the game master is asked"),
        "remove": ("il est retiré de la partie", "he is removed from the game"),
    },
    "removal_reveal": {
        "as_death": ("révélé comme pour un mort", "revealed as for a death"),
        "always": ("toujours révélé", "always revealed"),
        "never": ("jamais révélé", "never revealed"),
    },
    "substitute_name": {
        "newcomer": ("le sien", "his own"),
        "kept": ("celui du joueur remplacé", "the replaced player's"),
    },
    "observers": {
        "approve": ("acceptés par le meneur", "accepted by the game master"),
        "open": ("libres", "open to anyone"),
        "closed": ("aucun", "none"),
    },
    "deck_mode": {
        "recommended": ("celle recommandée", "the recommended one"),
        "custom": ("choisie par le meneur", "chosen by the game master"),
    },
    "seer_result_timing": {
        "dawn": ("à l'aube", "at dawn"),
        "immediate": ("aussitôt", "at once"),
    },
    "wolves_tie": {"random": _RANDOM, "no_victim": ("pas de victime", "no victim")},
    "wolves_tie_fallback": {"random": _RANDOM, "no_victim": ("pas de victime", "no victim")},
    "seer_pair_agreement": {
        "last": ("le dernier nom envoyé compte", "the last name sent counts"),
        "require_same": (
            "ils doivent choisir le même joueur, sinon pas de sondage",
            "they must choose the same player, else no probe",
        ),
    },
    "owl_pick_announced": {
        "round1_end": ("à la fin du premier tour", "at the end of the first round"),
        "dawn": ("à l'aube", "at dawn"),
    },
    "myth_if_missing": {"none": _NONE, "random": _RANDOM},
    "lovers_if_missing": {"none": _NONE, "random": ("tirés au hasard", "drawn at random")},
    "nomination_tie": {
        "random": _RANDOM,
        "all_tied": ("tous les ex æquo sont nommés", "all those tied are nominated"),
    },
    "single_nominee": {
        "lynch": ("il est lynché", "he is lynched"),
        "no_lynch": ("personne n'est lynché", "no one is lynched"),
    },
    "round2_tie": {
        "round1_then_random": (
            "le premier tour départage, sinon le hasard",
            "the first round decides, else chance",
        ),
        "random": _RANDOM,
        "no_lynch": ("personne n'est lynché", "no one is lynched"),
    },
    "mayor_election_tie": {
        "random": _RANDOM,
        "runoff": ("second tour", "a runoff"),
    },
    "wolves_list_detail": {
        "names_and_identities": ("noms et rôles", "names and roles"),
        "names_only": ("noms seulement", "names only"),
        "names_and_status": ("noms et état", "names and status"),
    },
    "everyone_dead": {
        "draw": ("match nul", "a draw"),
        "good": ("victoire du bien", "the good side wins"),
    },
    "fill_empty_seats": {
        "random": ("remplies au hasard", "filled at random"),
        "none": ("laissées vides", "left empty"),
    },
    "missed_bite": {"random": ("donnée au hasard", "given at random"), "none": ("perdue", "lost")},
    "cursed_count": {
        "new": ("les nouveaux maudits", "the newly cursed"),
        "total": ("tous les maudits", "all the cursed"),
        "both": ("les deux", "both"),
    },
    "key_escape_room": {
        "named_partner_still_names": (
            "le partenaire désigné nomme toujours la pièce",
            "the named partner still names the room",
        ),
        "naming_partner_chooses": (
            "l'autre partenaire choisit sa pièce",
            "the other partner chooses his room",
        ),
    },
    "final_default": {"flee": ("fuir", "flee"), "fight": ("combattre", "fight")},
    "paint_repeat": {
        "every_dawn": ("à chaque aube", "every dawn"),
        "first_time_per_player": (
            "une seule fois à chacun",
            "once to each of them",
        ),
    },
    "curse_notice": {
        "end_of_night": ("à la fin de la nuit", "at the end of the night"),
        "immediate": ("aussitôt", "at once"),
    },
    "curse_default": {
        "random_public": (
            "pièce tirée au hasard, annoncée à tous",
            "a random room, announced to all",
        ),
        "random_private": ("pièce tirée au hasard, en secret", "a random room, kept secret"),
        "none": ("aucune pièce", "no room"),
    },
    "curse_enforcement": {
        "bounce": ("refusé", "refused"),
        "flag": ("signalé au meneur", "flagged to the game master"),
    },
    "out_of_turn_posts": {
        "reject": ("refusé", "refused"),
        "hold_until_morning": ("gardé jusqu'au matin", "held until morning"),
        "flag": ("signalé au meneur", "flagged to the game master"),
    },
    "dracula_draw": {
        "uniform": ("au hasard", "at random"),
        "avoid_repeat": ("jamais deux fois le même", "never the same twice"),
    },
    "telepathy_review": {
        "auto": ("automatique", "automatic"),
        "admin": ("par le meneur", "by the game master"),
    },
    "mixed_lovers_victory": {
        "survive_to_end": ("survivre jusqu'à la fin", "survive to the end"),
        "last_two": ("être les deux derniers", "be the last two"),
    },
    "council_submission": {
        "last": ("le dernier envoyé", "the last one sent"),
        "first": ("le premier envoyé", "the first one sent"),
    },
    "prue_revenge_triggers": {
        "demons,lynch": ("les démons ou un lynchage", "demons or a lynching"),
        "any": ("toute mort", "any death"),
    },
    "tie_order": {
        "penny,last_lynched,random": (
            "Penny, puis le dernier lynché, puis le hasard",
            "Penny, then the last lynched, then chance",
        ),
        "last_lynched,penny,random": (
            "le dernier lynché, puis Penny, puis le hasard",
            "the last lynched, then Penny, then chance",
        ),
        "penny,random": ("Penny, puis le hasard", "Penny, then chance"),
        "last_lynched,random": (
            "le dernier lynché, puis le hasard",
            "the last lynched, then chance",
        ),
        "random": _RANDOM,
    },
}


def option_label(name: str, lang: str) -> str:
    """How the rules page names option ``name`` in ``lang`` (the name itself if unknown)."""
    words = LABELS.get(name)
    if words is None:
        return name
    return words[0] if lang == "fr" else words[1]


def option_words(name: str, value: Any, lang: str) -> str:
    """How the rules page shows ``value`` of option ``name``: a phrase for a choice, a
    duration as the mails write it, oui/non, yes/no."""
    fr = lang == "fr"
    if isinstance(value, bool):
        return ("oui" if value else "non") if fr else ("yes" if value else "no")
    if isinstance(value, timedelta):
        return duration(value.total_seconds(), lang)
    if isinstance(value, (list, tuple, frozenset, set)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        shown = f"{value:g}"
        return shown.replace(".", ",") if fr else shown
    choice = CHOICES.get(name, {}).get(str(value))
    if choice is not None:
        return choice[0] if fr else choice[1]
    return str(value)


ROLE_LISTS = frozenset({"specials", "custom_deck"})
"""Options whose value is a list of role ids: the rules template names each card with its
game's ``role`` macro (``<folder>/_names.jinja``)."""


def described(options: Mapping[str, Any], lang: str) -> list[tuple[str, str | dict[str, int]]]:
    """(label, value) of each option in ``options``, as the rules page lists them; a list of
    cards as {role id: count}, in the order given, for the template to name."""
    out: list[tuple[str, str | dict[str, int]]] = []
    for name, value in options.items():
        if name in ROLE_LISTS and isinstance(value, (list, tuple)):
            counts: dict[str, int] = {}
            for role in value:
                counts[str(role)] = counts.get(str(role), 0) + 1
            out.append((option_label(name, lang), counts))
        else:
            out.append((option_label(name, lang), option_words(name, value, lang)))
    return out


__all__ = ["CHOICES", "LABELS", "ROLE_LISTS", "described", "option_label", "option_words"]
