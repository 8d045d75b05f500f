"""The word lists :mod:`arborist._standalone.rule` reads a question with. Pure: no I/O.

Each list says, in its docstring, what its words do in a question; the rule that reads them is
in :mod:`arborist._standalone.rule`, and docs/retrieval.md ("Follow-ups") gives it in full. They live
apart from the rule so that the rule's module stays short enough to read.
"""

from __future__ import annotations

import re

from arborist._text.text_words import IDENTIFIER, word_pairs

__all__ = [
    "ACKNOWLEDGEMENTS",
    "ADDED",
    "ADDITIVES",
    "ADVERBIAL",
    "ALTERNATIVES",
    "AMBIENT",
    "ANAPHORIC_MODIFIERS",
    "ANSWERED",
    "ASKER",
    "AUXILIARIES",
    "BE",
    "CLAUSE_WORDS",
    "COMPARATIVES",
    "CONDITIONS",
    "CONTESTED",
    "CONTINUATIONS",
    "COUNTERPARTS",
    "CREATED",
    "DEFINING",
    "DEGREES",
    "DEMONSTRATIVES",
    "DEPENDENT",
    "DESTINATIONS",
    "DISTRIBUTIVE",
    "DOCUMENTED",
    "EDITS",
    "ELEMENTS",
    "ENUMERATED",
    "EVALUATIVE",
    "EVENTS",
    "EVEN_BEFORE",
    "EXCHANGED",
    "EXPLETIVE_VERBS",
    "FAILING",
    "FAILS",
    "FILLERS",
    "GENERIC",
    "GREETINGS",
    "INTRODUCERS",
    "IN_TIME",
    "JOINTS",
    "KINDS",
    "LIFTED",
    "LINKING",
    "MODIFIERS",
    "MODIFYING",
    "MORE",
    "NEGATED",
    "NOT_PROPER",
    "OBJECTS",
    "OMITTED",
    "ORDINALS",
    "ORDINAL_FIGURE",
    "OWNED",
    "OWNERS",
    "PARTS",
    "PAST",
    "PAST_DONE",
    "PICKS",
    "PLACES",
    "POSSESSIVES",
    "PRECISE",
    "PREPOSITIONS",
    "PROCEED",
    "PRONOUNS",
    "RECALLED",
    "RECIPIENTS",
    "RELATIONAL",
    "RELATIVE",
    "RELATIVES",
    "REPEATS",
    "REPLACED",
    "RESPONSES",
    "SAYING",
    "SEEKERS",
    "SEQUELS",
    "SOMEONE",
    "SUBJECTS",
    "SUBORDINATORS",
    "SUBSTITUTES",
    "TEXTED",
    "TIMED",
    "TIMES",
    "TOKEN",
    "TRANSPOSED",
    "UNAPOSTROPHED",
    "UNIQUE",
    "WEATHER",
    "WH",
    "WHEN",
    "wordset",
]


def wordset(listed: str) -> frozenset[str]:
    """The words of ``listed``, separated by spaces: how the word lists below are written."""
    return frozenset(listed.split())


PRONOUNS = wordset("it its itself they them their theirs themselves he him his she her hers")
"""Personal pronouns: a back-reference unless a noun phrase before them in the question
can be what they stand for (or ``it`` is the empty subject of "is it possible to")."""
DEMONSTRATIVES = wordset("this that these those")
"""``this``/``these``/``those`` always point; ``that`` only where it cannot be a conjunction
or a relative pronoun (first, after a preposition, or last in its clause)."""
INTRODUCERS = wordset("a an my your our each every several multiple two three")
"""Determiners that bring a new thing into the conversation ("a list", "my function", "two
threads"); the nouns after them can be what a later pronoun of the same question refers
to. ``the`` is not one: a definite noun phrase may itself point back."""
BE = wordset("is s was be isn wasn")
EXPLETIVE_VERBS = wordset("mean means take takes matter matters seem seems work works")
SUBORDINATORS = wordset("to that when if whether")
"""``it`` next to one of :data:`BE` or :data:`EXPLETIVE_VERBS` and followed in its clause
by one of these stands for the clause ("Is it possible to ...", "What does it mean when ...",
"How does it work when a company does a stock split?")."""
AMBIENT = wordset(
    "raining snowing hailing drizzling pouring sleeting thundering storming sunny cloudy "
    "windy foggy rainy snowy stormy humid muggy overcast freezing"
)
"""After "it" and "is"/"'s"/"was" (and "been", "so", ...: within three words), the weather:
"it" stands for nothing said ("It's been raining for a week, how do I ...")."""
TIMES = wordset(
    "year years month week weekend day morning afternoon evening night time season summer "
    "winter spring autumn fall decade century semester quarter"
)
"""After "this", these name the present ("this year", "this morning"), not a thing said before."""
GREETINGS = wordset("hi hello hey")
"""Opening a question, these greet and are read as absent, with a "there" after them ("Hi
there! I'm a teacher. ..."): it points at no place."""
ADVERBIAL = wordset("more again once instead")
"""After "that" and a noun, these say how, not what the noun does: "that" is a determiner
("rewrite that paragraph more formally"), not a conjunction before a clause."""
ACKNOWLEDGEMENTS = wordset(
    "ok okay alright thanks thank cool great hm hmm lol haha lmao ugh wow eh meh ya yeah yep"
)
"""Replies to the turn above or interjections, skipped before reading the opener ("ok but for
IPv6", "lol that's way too long")."""
TEXTED = {"ur": "your", "u": "you", "wat": "what", "wut": "what", "abt": "about"}
"""A texting spelling, typed in lower case, read as the word it spells ("reformulate ur
answer", "u forgot the units", "wat about vegans"; not "the city of Ur", "Mann-Whitney U")."""
UNAPOSTROPHED = word_pairs(
    """doesnt:doesn dont:don isnt:isn arent:aren didnt:didn wasnt:wasn werent:weren wont:will
        cant:can shouldnt:shouldn couldnt:couldn wouldnt:wouldn hasnt:hasn havent:haven""",
)
"""A negated auxiliary typed without its apostrophe ("doesnt"), read as the auxiliary."""
WEATHER = wordset("snows rains hails sleets drizzles pours snowed rained hailed snow rain")
"""Right after "it", the weather's "it" ("when it snows", "Does it rain much in Lima?")."""
FAILING = wordset("work run compile load help")
"""After a negated auxiliary, with "the N" that says not which as subject: a report that
something the last answer gave fails ("the formula doesn't work")."""
FAILS = wordset("fails failed crashes crashed breaks broke errors")
"""The same report without an auxiliary ("The script crashes on line 3")."""
LINKING = wordset("sound seem look feel appear work")
"""Right after "both", a verb that makes it the subject: a pair the last answer named
("Both sound good")."""
DISTRIBUTIVE = wordset("all every each")
"""After "the same" and a preposition, the set it is the same across ("the same in all
reference frames"): a comparison within the question, no pick."""
CONTINUATIONS = (
    "and",
    "also",
    "but",
    "so",
    "then",
    "or",
    "what about",
    "how about",
    "what else",
    "same",
    "likewise",
    "instead",
)
"""Openers that carry on from the turn above ("and for sets?", "same for csv")."""
LIFTED = ("and", "but", "also", "so", "what about", "how about")
"""Of :data:`CONTINUATIONS`, the ones a question with a subject of its own may open with
("And what is the difference between a virus and a bacterium?"): only what follows decides."""
PROCEED = frozenset({"go on", "carry on", "keep going", "go ahead", "continue"})
"""Asked alone, these ask the last answer to continue."""
PREPOSITIONS = wordset(
    "in with without for on using by via from at as into inside within through under over to"
)
"""A question opening with one of these and holding no clause is a modifier of the last
one ("with a custom separator", "in UTC instead")."""
CLAUSE_WORDS = wordset(
    "what how why when where which who whom whose is are was were am do does did can "
    "could should would will shall may might must has have had isn aren doesn don didn "
    "wouldn shouldn couldn weren hasn haven hadn"
)
NEGATED = wordset(
    "isn aren wasn weren doesn don didn hasn haven hadn wouldn shouldn couldn can will"
)
"""Before the "t" of "n't" ("isn't", "can't", "won't" read as "will"): the auxiliary, negated; the
"t" is read as part of it."""
ADDITIVES = wordset("too either")
SEQUELS = wordset("next afterwards afterward then")
"""Ending a clause, these presuppose what came before ("What happened next", "what happens
then"), unless a condition in the question is what came before ("If ..., what then?")."""
PARTS = wordset("part parts bit bits section passage paragraph sentence")
"""After ``the`` and not followed by ``of``, a part of the last answer ("the part about X")."""
RECALLED = wordset(
    "used showed shown mentioned gave given said wrote written suggested described recommended "
    "explained listed quoted cited"
)
"""After ``you``, these recall the last answer ("the formula you used")."""
SUBJECTS = wordset("i we you it they he she there")
"""After an auxiliary, these are the subject of a question ("should I", "is it", "are
there"): a clause that asks, not a statement put back to confirm."""
PRECISE = wordset("exact precise")
"""After "the", before one noun ending its clause, these ask again, more exactly, for what the
last answer gave ("the exact quote", "the precise figure")."""
RESPONSES = wordset("response reply return result")
"""After "in" ("in response", "in reply", "in return") or "as a" ("as a result"), ending a
clause, these answer to something said before: what the last answer was about."""
SAYING = wordset("says said shows prints printed outputs complains")
"""``it`` before one of these is the program's output, not a thing said before, when what it
says is there ("When it says my container exited with code 137, ...")."""
RELATIVES = wordset("that which who")
MODIFIERS = wordset("about on of for")
"""After a noun phrase, these open what it is about: an object pronoun in it is not that
noun phrase ("a book about it", like "a recipe that uses them")."""
EVALUATIVE = wordset("good best nice decent healthy cheap simple easy quick great")
"""Before a noun of something, these ask for one of it ("What's a good substitute?"): a
recommendation, not a definition."""
OBJECTS = wordset("it them him her")
POSSESSIVES = wordset("its their his")
"""Possessive pronouns: they may stand for the bare subject of their clause ("Why do cats
land on their feet?"), which an object pronoun cannot."""
"""Object pronouns: in a relative clause on a noun phrase they cannot stand for it."""
"""Last in a clause, these presuppose something said before ("with generators too?")."""
ALTERNATIVES = wordset("or vs versus between than compared compare")
COMPARATIVES = wordset(
    "faster slower simpler easier better worse shorter cleaner quicker safer smaller "
    "bigger larger cheaper clearer nicer"
)
"""A comparison with nothing to compare to ("faster way?") is against the last answer."""
RELATIVE = COMPARATIVES | wordset("different similar other")
"""After "a"/"an", these make a noun phrase relative to one given ("a different way"): it
brings nothing new."""
DEPENDENT = wordset("example examples counterexample counterexamples alternative alternatives")
"""Nouns that are of something: "an example" with nothing after it is of the last answer."""
ANAPHORIC_MODIFIERS = wordset(
    "first second third last next previous other same former latter full whole complete "
    "entire rest remaining above opposite"
)
"""After ``the``, these pick from or complete something already given ("the second
argument", "the full code")."""
RELATIONAL = wordset("difference")
"""Nouns that need two things: without ``between``/``of`` they are the last answer's."""
REPEATS = wordset("also again another")
SOMEONE = wordset("anyone anything anywhere someone something somewhere")
"""Before "else", these (and a question word) ask for more than was said ("who else")."""
"""Words that ask for more of what was just given ("another example", "also", "again")."""
MORE = wordset("more further elaborate")
"""Ending a clause, these ask for more of what was just said ("tell me more", "Can you
elaborate?"); with something after them they bring it ("more about asyncio")."""
FILLERS = wordset("please pls plz kindly")
"""Politeness, read as if absent wherever it stands ("an example please" is "an example")."""
OWNED = DEPENDENT | wordset(
    "detail details output outputs result results value values default defaults error errors "
    "syntax complexity signature purpose meaning reason answer code summary overview year "
    "sequel prequel author plot ending reception budget license price cost runtime version "
    "effects risks downsides drawbacks benefits advantages disadvantages limitations pros cons "
    "criticism criticisms counterargument counterarguments rebuttal rebuttals objection "
    "objections catch title edition editions coefficient coefficients substitute replacement recipe ingredients instructions steps "
    "requirements penalty penalties implications consequences dosage dose quantities amounts "
    "serving servings portion portions acronym abbreviation size takeaway takeaways"
)
"""Nouns that are of something ("the output", "the default value", "more details", "the
sequel"): with no owner after them and no proper name in the question, they are of what
the last answer was about."""
RECIPIENTS = wordset(
    "children kids adults women men babies infants toddlers teens teenagers seniors elderly "
    "beginners dogs cats pets"
)
"""After "for", these say for whom ("the dosage for children"), not what a noun of something
is of: the dosage is still of the last answer's medicine."""
MODIFYING = wordset("default defaults")
"""Of :data:`OWNED`, the ones that also modify the noun after them ("the default recursion
limit" is a limit, of the recursion): of something only last, or before another one."""
SEEKERS = wordset("the more any some what which")
"""Before a noun phrase of :data:`OWNED`, these ask for it ("the output", "more details")."""
OWNERS = PREPOSITIONS | wordset("of between about")
"""After a noun phrase, these bring what it is of ("the output of ls", "the default for
dict.get", "the default encoding in Python")."""
JOINTS = wordset("and so when because while until before after once")
"""Joining a second clause to a first, these let a pronoun in the second stand for the first
clause's subject ("how do index funds work and why do they ...", "store fresh herbs so they
last longer")."""
COUNTERPARTS = wordset("original equivalent same opposite counterpart inverse reverse converse")
"""After ``the``, these are relative to another thing, which only ``of``, ``to`` or ``as``
after them names ("the equivalent of a semicolon", "the same as before"): otherwise the
other thing is the last answer's ("Who sang the original?", "What's the equivalent in git?"),
unless the question compares two things of its own ("Are lists and tuples the same?")."""
PICKS = wordset("first second third last next previous other former latter two both")
"""After ``the``, these pick from things already given ("the first method", "the two
approaches") wherever they stand, unless the question says from what: an owner with a name
("the first president of the United States") or a clause ("the first person to walk on the
moon", "the last thing that ...")."""
ORDINAL_FIGURE = re.compile(r"\d+(?:st|nd|rd|th)")
"""An ordinal in figures ("3rd", "21st"), read as a literal: before a noun an answer numbers
its items by ("the 3rd step") it names an item of the last answer's list."""
ORDINALS = wordset("first second third last next previous")
"""Of :data:`PICKS`, the ones that order things in time or in a sequence: before a compound
noun of two words or more that is no part of an answer ("the last git commit", "the next
solar eclipse"), they pick from the world's things of that kind, not from the last answer."""
EVENTS = wordset(
    "commit commits command commands job jobs update updates upgrade release build builds "
    "deploy deployment migration migrations backup backups push merge rebase reboot restart "
    "crash login session sessions transaction transactions payment request requests call "
    "election elections eclipse census checkpoint snapshot stash"
)
"""Things done or that happen in time, in the world the asker works in: after an ordinal of
:data:`IN_TIME` they are the world's most recent, first or coming one, not a pick from the last
answer ("How do I undo the last commit?", "rerun the last command", "When is the next
election?"; "the last point", "the last one", "the last example" are parts of an answer)."""
IN_TIME = wordset("first last next previous latest")
"""Of :data:`ORDINALS`, the ones that order things in time (and "latest"): before a noun of
:data:`EVENTS` the world's, not the last answer's."""
ELEMENTS = wordset(
    "line lines row rows column columns element elements item items character characters "
    "char chars word words entry entries record records field fields cell cells byte bytes "
    "digit digits node nodes letter letters key keys argument arguments occurrence match"
)
"""The parts data is made of: after an ordinal, with "of", "in" or "from" and a thing that is
no part of an answer after them, they are that thing's ("the last line of the data file",
"delete the last row in pandas"; not "the last line", "the second line of the code")."""
UNIQUE = wordset(
    "sky sun moon earth world internet web universe ocean sea weather atmosphere economy "
    "environment climate body brain heart liver lungs kidneys stomach skin"
)
"""Things there is one of, or one of in everyone: "the sky", "the liver" needs nothing said
before to say which."""
GENERIC = wordset(
    "best worst most least right proper correct easiest fastest simplest cheapest safest "
    "quickest ideal optimal average typical usual"
)
"""Opening a definite noun phrase, these make it generic ("the best way to ...", "the right
way"), not one thing said before."""
EDITS = wordset(
    "translate reformat rewrite rephrase reword shorten simplify expand summarize summarise "
    "format redo double halve triple scale substitute replace swap skip omit recompute "
    "recalculate rerun redraw replot rework restate repeat reformulate"
)
"""Verbs that change a text or a recipe: opening a request, with "the N" that says not which
as their object, they edit the last answer ("Translate the answer into French", "Can I
substitute the eggs?"; "Translate \"good morning\" into Japanese" brings its own object)."""
DESTINATIONS = wordset("into to as in for with instead using at without")
"""After an edited noun phrase, these say what it becomes or how, not which it is ("the answer
into French", "the answer as bullet points", "the estimate using 4% growth")."""
DOCUMENTED = wordset(
    "figure figures table tables chart charts graph graphs diagram diagrams page pages footnote "
    "footnotes slide slides chapter chapters bullet bullets caption captions heading "
    "headings transcript transcripts interview interviews participant participants respondent "
    "respondents excerpt excerpts spreadsheet dataset column columns row rows"
)
"""Opening "the N", these are parts of a document or of its data ("the figure on page 4",
"the bullet points", "the interview with participant 7"): one in the user's documents or
the last answer, unless a name, a proper name or a new noun phrase says whose."""
ADDED = wordset("add include insert append attach")
PLACES = wordset("to into in on at onto inside within")
"""After "can you" and a verb of :data:`ADDED`, these say where it goes ("add a column to a
DataFrame"); without one the last answer is where ("Can you add type hints?")."""
ENUMERATED = wordset(
    "step steps option options point points item items line lines tip tips method approach "
    "solution example part section paragraph bullet idea suggestion choice scenario case"
)
"""Nouns an answer numbers its items by: before a number or a capital letter ("step 3",
"option B") they name an item of the last answer's list, unless what follows says whose."""
SUBSTITUTES = wordset("substitute swap")
REPLACED = SUBSTITUTES | wordset("replace exchange")
"""Verbs of exchange: with both sides named ("replace butter with coconut oil"), the exchange
is what the question is about."""
EXCHANGED = wordset("for with and in into between by out two both")
"""After a verb of :data:`SUBSTITUTES`, these in its clause say what it is exchanged for or
between ("substitute honey for sugar", "swap two variables"); without one, the other side is
the last answer's."""
TIMED = wordset("after before during")
"""Before "the" and a word in -ing, these place the question after a step taken ("after the
filtering"): the step the last answer was about."""
ANSWERED = wordset(
    "answer answers solution solutions code example examples explanation approach method "
    "response reply suggestion formula proof version list table script program query function "
    "reasoning calculation derivation recipe summary snippet snippets point points "
    "claim statement numbers figures math maths"
)
"""After ``your``, what an answer is made of: "your solution" is the last answer's ("What is
your name?" asks about the one answering)."""
ASKER = wordset("i we you")
"""Subjects of a request after its auxiliary ("Can I substitute ...", "Could you rewrite ...")."""
CONTESTED = wordset("won lost beat win wins lose loses")
"""After "who", these ask the outcome of one contest ("Who won the rematch?"): "the N" that
says not which is the one the last answer was about."""
CREATED = wordset(
    "invented discovered created designed developed coined patented pioneered founded named "
    "popularized popularised introduced"
)
"""After "who", these make "the N" a kind, made once ("Who invented the telephone?"), not one
thing the last answer was about ("Who funded the study?")."""
PAST_DONE = wordset("forgot got left made wrote gave put took mixed")
"""Irregular verbs in the past: after "you" opening a clause ("I think you forgot the
salt"), like a verb in -ed ("you swapped the axes"), they say what the last answer did."""
OMITTED = wordset("omit substitute halve double")
"""After "I" or "we", with "the N" that says not which ("if I leave out the eggs", "if I
omit the butter"), these change the last answer's recipe; so does "leave out"."""
WHEN = wordset("at after before during in since until when while by")
"""Before "the N" in a question in the past, these place it in time or space: the time or
place the last answer was about ("at the time", "after the treaty was signed")."""
KINDS = wordset(
    "module modules function functions method methods class classes library package "
    "operator statement keyword decorator command protocol language format algorithm"
)
"""A definite noun phrase with one of these names its thing by the word before it ("the
json module", "the walrus operator"): it needs nothing said before."""
DEFINING = wordset("is are s")
"""After an opening "what", the bare noun after these is the new thing asked about."""
NOT_PROPER = wordset("I None True False")
"""Capitalised inside a sentence, yet naming no thing a question could be about."""
WH = wordset("what how why when where which who whom whose")
AUXILIARIES = (CLAUSE_WORDS | BE) - WH
PAST = wordset("was were did had wasn weren didn hadn")
"""A question in the past about "the N" asks about one particular N: the one the last
answer was about ("Was the comic successful?", "When was the book published?"). The
present is also the generic ("How does the garbage collector work?") and is not read so."""
DEGREES = wordset("many much long often far old")
"""After "how", part of the question word ("How many pages?", "How long?")."""
CONDITIONS = wordset("if unless whenever when even")
"""A question opening with one of these and holding no main clause is a condition on the
last answer ("even when the list is empty?", "if the file is huge?")."""
EVEN_BEFORE = SUBORDINATORS | PREPOSITIONS | wordset("though after before so")
"""After an opening "even", these make it a concession ("even with a timeout?"), not the
adjective of "even numbers"."""
TOKEN = re.compile(
    r"(?P<name>@[A-Za-z_]\w*|" + IDENTIFIER.pattern + r"|[^\W\d_]+\d\w*)"
    r"|(?P<literal>\d[\w.:/+-]*|\"[^\"]*\"|`[^`]*`|(?<!\w)'[^']*'(?!\w)"
    r"|(?<![\w*+/%=<>!&|^~:-])(?::=|!=|->|[*+/%=<>&|^~]+)(?![\w*+/%=<>!&|^~-]))"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<mark>[?!.;:,]|(?<!\S)[-\u2013\u2014](?!\S)|[\u2013\u2014])"
)
"""A question's tokens: a name (``json.loads``, ``@property``, ``sqlite3``), a literal (a
number, a quoted string, an operator standing apart), a word, or a punctuation mark: a dash
standing apart, or an en or em dash, ends a clause as a comma does ("The quote 'float like a
butterfly' - who said it?": "who" asks, it opens no relative clause on the quote)."""


def _transposed(words: frozenset[str]) -> dict[str, str]:
    """Each of ``words`` of six letters or more with two letters next to each other swapped, the
    commonest typing slip ("exmaple"), mapped to the word; a spelling that is itself one of
    ``words`` is left out."""
    slips = {}
    for word in sorted(words):
        if len(word) < 6:
            continue
        for k in range(len(word) - 1):
            slip = word[:k] + word[k + 1] + word[k] + word[k + 2 :]
            if slip != word and slip not in words:
                slips[slip] = word
    return slips


TRANSPOSED = _transposed(OWNED | ANSWERED | EDITS)
"""The nouns of something, of an answer and the verbs of an edit, typed with two letters next to
each other swapped, read as the word ("can u give an exmaple" is "can you give an example"):
six letters or more, so that no English word of its own is read as another."""
