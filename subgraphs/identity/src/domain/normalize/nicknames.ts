/**
 * Common English given-name nicknames and spelling variants, grouped under one canonical form.
 * A name may belong to several groups ("Al" is Albert, Alan, Alfred or Alexander; "Chris" is
 * Christopher, Christina, Christine or Christian), so canonicalization returns a set: two given
 * names agree at the nickname level when their canonical sets intersect. The canonical of a name in
 * no group is the name itself.
 *
 * Format: one group per line, `canonical: variant variant …`, folded lowercase ASCII. Sources: the
 * usual genealogy and record-linkage nickname lists, trimmed to pairs in current use.
 */
import { foldLetters } from './text.js';

const GROUPS_TEXT = `
robert: bob bobby bobbie rob robbie robby bert
david: dave davey davy
william: bill billy will willie willy liam wills
elizabeth: liz lizzie lizzy beth betty betsy bess bessie eliza libby lisa elisa elise elsie elspeth
margaret: peggy peg maggie meg megan marge margie madge greta daisy rita margo
richard: rick ricky dick rich richie
james: jim jimmy jamie jem jimmie
john: jack johnny jon jonny
joseph: joe joey jos jody
michael: mike mikey mick mickey mikael
thomas: tom tommy thom
charles: charlie chuck chas chip
christopher: chris kit topher kristopher cristopher
daniel: dan danny
matthew: matt matty mathew
anthony: tony antony
donald: don donnie donny
steven: steve stevie stephen
andrew: andy drew
joshua: josh
kenneth: ken kenny
kevin: kev
brian: bryan bryon
george: georgie
edward: ed eddie eddy ned ted teddy
ronald: ron ronnie ronny
timothy: tim timmy
jason: jay
jeffrey: jeff geoffrey geoff jeffery
jacob: jake jakob
nicholas: nick nicky nico nicolas
jonathan: jon jonny
benjamin: ben benny benji
samuel: sam sammy
gregory: greg
alexander: alex al alec sandy xander lex alexis alek
patrick: pat paddy patty
francis: frank frankie fran
franklin: frank frankie
raymond: ray
dennis: denny
gerald: jerry gerry
jerome: jerry
henry: hank harry hal
harold: harry hal
douglas: doug
peter: pete
walter: walt wally
lawrence: larry laurie laurence
albert: al bert bertie
arthur: art artie
eugene: gene
louis: lou louie lewis
philip: phil phillip pip
frederick: fred freddie freddy fritz frederic
leonard: leo len lenny
vincent: vince vinny vinnie
bradley: brad
randall: randy
randolph: randy dolph
theodore: ted teddy theo
alfred: al alfie fred freddie
alan: al allen allan alen
stanley: stan
nathaniel: nate nat nathan
nathan: nate nat
zachary: zach zack zak zac
gabriel: gabe
jeremy: jerry jem
jeremiah: jerry jem
sebastian: seb
maximilian: max
maxwell: max
oliver: ollie
isaac: ike
abraham: abe
solomon: sol
mitchell: mitch
russell: russ rusty
clifford: cliff
cameron: cam
bernard: bernie barney
montgomery: monty
augustus: gus augie
cornelius: neil connie
reginald: reggie reg
ernest: ernie
herbert: herb bert
howard: howie
wesley: wes
calvin: cal
terrence: terry terence
dominic: dom dominick
desmond: des
ezekiel: zeke
elijah: eli
christian: chris
vernon: vern
lester: les
leslie: les
sylvester: sly
percival: percy
archibald: archie
ferdinand: ferdie
cyrus: cy
mortimer: mort morty
maurice: mo morris
elias: eli
benedict: ben
bartholomew: bart
tobias: toby
lucas: luke
reuben: rube ruben
rudolph: rudy rolf
roland: rollo
wilfred: wilf
gilbert: gil
sidney: sid sydney
valentine: val
delbert: del
curtis: curt
clinton: clint
everett: ev
jefferson: jeff
ebenezer: eb eben
chester: chet
marvin: marv
mervin: merv
emmanuel: manny
manuel: manny
jose: pepe
francisco: paco pancho cisco
eduardo: lalo
ignacio: nacho
jesus: chuy
roberto: beto
alberto: beto
rafael: rafa raphael
antonio: tony toni
giuseppe: beppe pino
vladimir: vlad
dmitri: dima dmitry
mikhail: misha
aleksandr: sasha
mary: molly polly mamie mae mimi minnie marie
patricia: pat patty patsy tricia trish trisha
jennifer: jen jenny jenn jenni
linda: lindy
barbara: barb babs barbie bobbie
susan: sue susie suzy suzanne susanne
jessica: jess jessie
sarah: sally sadie sara
sandra: sandy sandi
kimberly: kim kimmy kimberley
emily: em emmy emmie
michelle: shelly shelley michele
caroline: carrie caro callie carol
carolyn: carrie carol
amanda: mandy manda
melissa: mel missy lissa
deborah: deb debbie debby debra
stephanie: steph stevie
rebecca: becky becca beck
laura: laurie lori
cynthia: cindy cyndi
kathleen: kathy kath kay
katherine: kate katie kathy kat kitty kay catherine cathy cath kathryn katharine kathrine
angela: angie
helen: nell nellie helena
anne: ann annie nan nancy nanny anna
pamela: pam
nicole: nicki nikki nickie
samantha: sam sammie sammy
christine: chris chrissy christy tina
christina: chris chrissy christy tina kristina
rachel: rae
janet: jan
virginia: ginny ginger
julia: jules julie
victoria: vicky vickie tori vic
joanne: jo joanie
joanna: jo
evelyn: evie eve
judith: judy jude
jacqueline: jackie jacqui jacky
martha: marty mattie patsy
teresa: terry tess tessa tessie theresa tracy
madison: maddie maddy
frances: fran frannie fanny francie
janice: jan
jean: jeanie
abigail: abby abbie gail
alice: allie ally
sophia: sophie
grace: gracie
denise: denny
danielle: dani danni
beverly: bev
isabella: bella izzy isabel isabelle belle
diana: di diane
natalie: nat talia
natasha: tasha tash
brittany: britt
charlotte: charlie lottie lotte
alexandra: alex lexi sandy sasha alexa
alexis: lexi lexie
louise: lou lulu louisa
eleanor: ellie nell nora elle elinor
gertrude: gertie trudy
harriet: hattie
penelope: penny
priscilla: cilla prissy
rosemary: rose rosie
rosalind: roz
roberta: bobbie robbie
wilhelmina: mina willa
winifred: winnie freda
josephine: jo josie
georgina: georgie gina
regina: gina reggie
veronica: ronnie vera
valerie: val
gwendolyn: gwen wendy
cassandra: cassie
lucinda: lucy cindy
lucille: lucy
mildred: millie
millicent: millie
agnes: aggie
adelaide: addie heidi
constance: connie
prudence: prue
tabitha: tabby
tiffany: tiff
olivia: liv livvy
madeline: maddie madeleine madelyn
dorothy: dot dottie dolly dora
kristen: kris kristin kirsten
geraldine: gerry geri
antoinette: toni netty
`;

/** canonical → its variants, in file order. */
export const NICKNAME_GROUPS: ReadonlyMap<string, readonly string[]> = (() => {
  const groups = new Map<string, string[]>();
  for (const line of GROUPS_TEXT.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const [canonical, rest] = trimmed.split(':') as [string, string | undefined];
    const variants = (rest ?? '').trim().split(/\s+/).filter(Boolean);
    const existing = groups.get(canonical.trim());
    if (existing) existing.push(...variants);
    else groups.set(canonical.trim(), variants);
  }
  return groups;
})();

/** name → every canonical it belongs to (sorted). Built once. */
const CANONICALS: ReadonlyMap<string, readonly string[]> = (() => {
  const index = new Map<string, Set<string>>();
  const add = (name: string, canonical: string) => {
    let set = index.get(name);
    if (!set) index.set(name, (set = new Set()));
    set.add(canonical);
  };
  for (const [canonical, variants] of NICKNAME_GROUPS) {
    add(canonical, canonical);
    for (const v of variants) add(v, canonical);
  }
  return new Map([...index].map(([name, set]) => [name, [...set].sort()]));
})();

/**
 * Canonical forms of one given name (folded first). A name that is both a canonical and a variant
 * ("nathan") returns both. An unknown name returns itself. Empty input returns [].
 */
export function canonicalGivenNames(name: string): string[] {
  const folded = foldLetters(name);
  if (folded === '') return [];
  return [...(CANONICALS.get(folded) ?? [folded])];
}

/** True when two given names share a canonical form (Bob ~ Robert, Peggy ~ Margaret). */
export function sameGivenName(a: string, b: string): boolean {
  const setA = new Set(canonicalGivenNames(a));
  return canonicalGivenNames(b).some((c) => setA.has(c));
}
