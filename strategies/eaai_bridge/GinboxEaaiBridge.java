// The EAAI bridge: a player of the EAAI Gin Rummy framework (a ginrummy.GinRummyPlayer) at a
// ginbox table, through ginbox's outside-player protocol ("ginbox-agent 1",
// docs/outside-players.md). ginbox compiles this file on first use (strategies/eaai.py) and
// runs it with the player's classpath: java GinboxEaaiBridge CLASS (or --check CLASS).
//
// The player is called exactly as the framework's GinRummyGame calls it: startGame at each
// hand; willDrawFaceUpCard at each offer and draw; reportDraw (null for a face-down card drawn
// by the other player); getDiscard, then reportDiscard, then getFinalMelds after each of its
// discards (non-null: it knocks); reportDiscard of the other's discards; at a knock
// reportFinalMelds of the knocker, getFinalMelds of the defender and reportFinalMelds of its
// melds, reportLayoff of each card laid off; reportFinalHand of both hands and reportScores.
// A Java exception, an illegal discard or illegal knock melds resign the game, with the reason.

import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

public final class GinboxEaaiBridge {
    static final String PROTOCOL = "ginbox-agent 1";
    static final String RANKS = "A23456789TJQK";
    static final String SUITS = "CHSD"; // the framework's suit order: its card id is suit * 13 + rank

    private final String className;
    private final PrintStream out;
    private GinRummyPlayer player;
    private int me;
    private int knockLimit = 10;
    private final List<Card> hand = new ArrayList<>();
    private Card takenFaceUp; // the face-up card drawn this turn, which may not be discarded
    private Card pendingDiscard; // chosen at the knock question, played at the discard
    private ArrayList<ArrayList<Card>> declaredMelds; // the melds it knocked with
    private String fault; // a failure in an event, told at the next question

    private GinboxEaaiBridge(String className, PrintStream out) {
        this.className = className;
        this.out = out;
    }

    /** A failure of the player: the game is resigned with the reason. */
    static final class Fault extends Exception {
        Fault(String reason) {
            super(reason);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--check")) {
            String problem = loadProblem(args[1]);
            if (problem != null) {
                System.err.println(problem);
                System.exit(2);
            }
            return;
        }
        if (args.length != 1) {
            System.err.println("usage: java GinboxEaaiBridge [--check] CLASS");
            System.exit(2);
        }
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        System.setOut(System.err); // what the player prints must not mix with the protocol
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        new GinboxEaaiBridge(args[0], protocol).run(in);
    }

    /** Why CLASS cannot play (null when it can): not found, not a player, no constructor. */
    static String loadProblem(String name) {
        Class<?> c;
        try {
            c = Class.forName(name);
        } catch (ClassNotFoundException | LinkageError e) {
            return "class " + name + " is not on the classpath (" + e + ")";
        }
        if (!GinRummyPlayer.class.isAssignableFrom(c))
            return "class " + name + " is not a ginrummy.GinRummyPlayer";
        try {
            c.getConstructor();
        } catch (NoSuchMethodException e) {
            return "class " + name + " has no public constructor without arguments";
        }
        return null;
    }

    private void run(BufferedReader in) throws Exception {
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> m = Json.object(line);
            String type = (String) m.get("type");
            if ("bye".equals(type))
                return;
            try {
                handle(type, m);
            } catch (Fault f) {
                resign(f.getMessage());
            } catch (Exception | LinkageError | StackOverflowError e) {
                String reason = describe(e);
                if (isQuestion(type))
                    resign(reason);
                else if (fault == null)
                    fault = reason;
            }
        }
    }

    private static boolean isQuestion(String type) {
        return "hello".equals(type) || "decision".equals(type) || "showdown".equals(type)
                || "hand_end".equals(type);
    }

    private static String describe(Throwable e) {
        StackTraceElement[] where = e.getStackTrace();
        return "the player threw " + e + (where.length > 0 ? " at " + where[0] : "");
    }

    private void resign(String reason) {
        send("{\"type\":\"resign\",\"reason\":" + Json.quote(reason) + "}");
        fault = null;
    }

    private void send(String line) {
        out.print(line);
        out.print('\n');
        out.flush();
    }

    private void handle(String type, Map<String, Object> m) throws Exception {
        if (fault != null && isQuestion(type) && !"hello".equals(type))
            throw new Fault(fault);
        switch (type) {
            case "hello" -> hello(m);
            case "game" -> seedRandoms(((Number) m.get("seed")).longValue());
            case "hand" -> startHand(m);
            case "move" -> moved(m);
            case "decision" -> decide(m);
            case "showdown" -> layOut(m);
            case "hand_end" -> endHand(m);
            default -> { } // game_end and events of later versions: nothing to call
        }
    }

    private void hello(Map<String, Object> m) throws Exception {
        if (((Number) m.get("players")).intValue() != 2)
            throw new Fault("the EAAI framework's players play two-handed games only");
        String problem = loadProblem(className);
        if (problem != null)
            throw new Fault(problem);
        Constructor<?> make = Class.forName(className).getConstructor();
        player = (GinRummyPlayer) make.newInstance();
        me = ((Number) m.get("seat")).intValue();
        Map<?, ?> options = (Map<?, ?>) ((Map<?, ?>) m.get("rules")).get("options");
        knockLimit = ((Number) options.get("knock_limit")).intValue();
        send("{\"type\":\"hello\",\"protocol\":\"" + PROTOCOL + "\",\"name\":"
                + Json.quote("eaai:" + className) + "}");
    }

    /** Seed each java.util.Random the player holds (its own fields and its superclasses'). */
    private void seedRandoms(long seed) throws IllegalAccessException {
        int i = 0;
        for (Class<?> c = player.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || !Random.class.isAssignableFrom(f.getType()))
                    continue;
                try {
                    f.setAccessible(true);
                } catch (RuntimeException e) {
                    continue; // a field of a sealed module: left as it is
                }
                Random r = (Random) f.get(player);
                if (r != null)
                    r.setSeed(seed + i++);
            }
        }
    }

    private void startHand(Map<String, Object> m) {
        hand.clear();
        hand.addAll(cards(m.get("cards")));
        takenFaceUp = pendingDiscard = null;
        declaredMelds = null;
        int nondealer = ((Number) m.get("nondealer")).intValue();
        player.startGame(me, nondealer, hand.toArray(new Card[0]));
    }

    private void moved(Map<String, Object> m) {
        int seat = ((Number) m.get("seat")).intValue();
        String move = (String) m.get("move");
        Card card = m.get("card") == null ? null : card((String) m.get("card"));
        switch (move) {
            case "draw_discard", "draw_stock" -> {
                if (seat == me) {
                    hand.add(card);
                    takenFaceUp = move.equals("draw_discard") ? card : null;
                }
                player.reportDraw(seat, card);
            }
            case "discard" -> {
                if (seat == me) {
                    hand.remove(card);
                    if (card.equals(pendingDiscard)) { // already told, before getFinalMelds
                        pendingDiscard = null;
                        return;
                    }
                }
                player.reportDiscard(seat, card);
            }
            default -> { } // pass and knock: the framework tells neither
        }
    }

    private void decide(Map<String, Object> m) throws Fault {
        String decision = (String) m.get("decision");
        String move;
        switch (decision) {
            case "offer", "draw" -> {
                boolean take = player.willDrawFaceUpCard(card((String) m.get("top")));
                move = take ? "draw_discard" : decision.equals("offer") ? "pass" : "draw_stock";
            }
            case "knock" -> {
                chooseDiscard();
                move = declaredMelds != null ? "knock" : "no_knock";
            }
            case "discard" -> {
                if (pendingDiscard == null) {
                    chooseDiscard();
                    if (declaredMelds != null)
                        throw new Fault("the player declared knock melds " + declaredMelds
                                + " where the rules do not let it knock");
                }
                move = text(pendingDiscard);
            }
            default -> throw new Fault("asked an unknown decision " + decision);
        }
        String melds = move.equals("knock") ? ",\"melds\":" + meldsJson(declaredMelds) : "";
        send("{\"type\":\"move\",\"id\":" + m.get("id") + ",\"move\":\"" + move + "\"" + melds + "}");
    }

    /** getDiscard, reportDiscard and getFinalMelds, in the framework's order, checked. */
    private void chooseDiscard() throws Fault {
        Card discard = player.getDiscard();
        if (discard == null || !hand.contains(discard) || discard.equals(takenFaceUp))
            throw new Fault("illegal discard " + discard + (discard != null && discard.equals(takenFaceUp)
                    ? ": the card just drawn face up" : ": not in its hand"));
        pendingDiscard = discard;
        player.reportDiscard(me, discard);
        ArrayList<ArrayList<Card>> melds = player.getFinalMelds();
        if (melds != null) {
            List<Card> left = new ArrayList<>(hand);
            left.remove(discard);
            String problem = meldProblem(melds, left, true);
            if (problem != null)
                throw new Fault("illegal knock melds " + melds + ": " + problem);
        }
        declaredMelds = melds;
    }

    /** Why the melds are not a legal lay-down of hand (null if they are). */
    private String meldProblem(List<? extends List<Card>> melds, List<Card> cards, boolean knocker) {
        Set<Card> used = new HashSet<>();
        for (List<Card> meld : melds) {
            if (meld == null || !isMeld(meld))
                return meld + " is not a meld";
            for (Card c : meld) {
                if (!cards.contains(c))
                    return c + " is not in the hand";
                if (!used.add(c))
                    return c + " is in two melds";
            }
        }
        int deadwood = 0;
        for (Card c : cards)
            if (!used.contains(c))
                deadwood += Math.min(c.getRank() + 1, 10);
        return knocker && deadwood > knockLimit ? "deadwood " + deadwood + " is over " + knockLimit : null;
    }

    static boolean isMeld(List<Card> meld) {
        if (meld.size() < 3)
            return false;
        boolean sameRank = true, sameSuit = true;
        int low = 13, high = -1;
        Set<Integer> ranks = new HashSet<>();
        for (Card c : meld) {
            sameRank &= c.getRank() == meld.get(0).getRank();
            sameSuit &= c.getSuit() == meld.get(0).getSuit();
            low = Math.min(low, c.getRank());
            high = Math.max(high, c.getRank());
            ranks.add(c.getRank() * 4 + c.getSuit());
        }
        if (ranks.size() != meld.size())
            return false;
        return (sameRank && meld.size() <= 4) || (sameSuit && high - low + 1 == meld.size());
    }

    /** The defender's turn at a knock: told the knocker's melds, asked its own. */
    private void layOut(Map<String, Object> m) throws Fault {
        player.reportFinalMelds(((Number) m.get("knocker")).intValue(), melds(m.get("knocker_melds")));
        ArrayList<ArrayList<Card>> mine = player.getFinalMelds();
        String problem = mine == null ? "null" : meldProblem(mine, hand, false);
        if (problem != null)
            throw new Fault("illegal final melds " + mine + ": " + problem);
        declaredMelds = copy(mine);
        send("{\"type\":\"layout\",\"id\":" + m.get("id") + ",\"melds\":" + meldsJson(mine) + "}");
    }

    private void endHand(Map<String, Object> m) throws Fault {
        Map<?, ?> r = (Map<?, ?>) m.get("result");
        Map<?, ?> declared = (Map<?, ?>) m.get("declared");
        String end = (String) r.get("end");
        if (end.equals("knock") || end.equals("gin") || end.equals("undercut")) {
            int knocker = ((Number) r.get("knocker")).intValue();
            int defender = 1 - knocker;
            Object k = declared.get(Integer.toString(knocker));
            Object d = declared.get(Integer.toString(defender));
            if (defender != me) // the defender was told at its showdown
                player.reportFinalMelds(knocker, melds(k != null ? k : r.get("knocker_melds")));
            player.reportFinalMelds(defender, melds(d != null ? d : r.get("defender_melds")));
            if (!end.equals("gin"))
                for (Object o : (List<?>) r.get("layoffs")) {
                    Map<?, ?> layoff = (Map<?, ?>) o;
                    player.reportLayoff(defender, card((String) layoff.get("card")),
                            cards(layoff.get("meld")));
                }
        }
        Map<?, ?> hands = (Map<?, ?>) m.get("hands");
        for (int seat = 0; seat < 2; seat++)
            player.reportFinalHand(seat, cards(hands.get(Integer.toString(seat))));
        List<?> scores = (List<?>) m.get("scores");
        player.reportScores(new int[] {((Number) scores.get(0)).intValue(),
                ((Number) scores.get(1)).intValue()});
        send("{\"type\":\"ready\"}");
    }

    private static String meldsJson(List<? extends List<Card>> melds) {
        StringBuilder b = new StringBuilder("[");
        for (List<Card> meld : melds) {
            b.append(b.length() > 1 ? "," : "").append('[');
            for (int i = 0; i < meld.size(); i++)
                b.append(i > 0 ? "," : "").append('"').append(text(meld.get(i))).append('"');
            b.append(']');
        }
        return b.append(']').toString();
    }

    private static ArrayList<ArrayList<Card>> copy(List<? extends List<Card>> melds) {
        ArrayList<ArrayList<Card>> out = new ArrayList<>();
        for (List<Card> meld : melds)
            out.add(new ArrayList<>(meld));
        return out;
    }

    private static ArrayList<ArrayList<Card>> melds(Object value) {
        ArrayList<ArrayList<Card>> out = new ArrayList<>();
        for (Object meld : (List<?>) value)
            out.add(cards(meld));
        return out;
    }

    private static ArrayList<Card> cards(Object value) {
        ArrayList<Card> out = new ArrayList<>();
        for (Object c : (List<?>) value)
            out.add(card((String) c));
        return out;
    }

    static Card card(String text) {
        return Card.getCard(RANKS.indexOf(text.charAt(0)), SUITS.indexOf(text.charAt(1)));
    }

    static String text(Card c) {
        return "" + RANKS.charAt(c.getRank()) + SUITS.charAt(c.getSuit());
    }

    /** Just enough JSON for the protocol's messages: objects, arrays, text, numbers, literals. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String line) {
            return (Map<String, Object>) new Json(line).value();
        }

        static String quote(String text) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\')
                    b.append('\\').append(c);
                else if (c < 0x20)
                    b.append(String.format("\\u%04x", (int) c));
                else
                    b.append(c);
            }
            return b.append('"').toString();
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i)))
                i++;
        }

        private Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                skip();
                while (s.charAt(i) != '}') {
                    String key = (String) value();
                    skip();
                    i++; // ':'
                    m.put(key, value());
                    skip();
                    if (s.charAt(i) == ',')
                        i++;
                    skip();
                }
                i++;
                return m;
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                skip();
                while (s.charAt(i) != ']') {
                    list.add(value());
                    skip();
                    if (s.charAt(i) == ',')
                        i++;
                    skip();
                }
                i++;
                return list;
            }
            if (c == '"')
                return string();
            int start = i;
            while (i < s.length() && ",}] \t".indexOf(s.charAt(i)) < 0)
                i++;
            String word = s.substring(start, i);
            switch (word) {
                case "true": return Boolean.TRUE;
                case "false": return Boolean.FALSE;
                case "null": return null;
                default:
                    return word.contains(".") || word.contains("e") || word.contains("E")
                            ? (Object) Double.parseDouble(word) : (Object) Long.parseLong(word);
            }
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++;
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            i++;
            return b.toString();
        }
    }
}
