// EPUBCheck over several files in one Java process (tests/test_rulebook_epub.py): its command
// line takes one file, and each start of the JVM and of EPUBCheck costs seconds. Run by the
// JDK's source launcher: java -cp epubcheck.jar tests/EpubCheckMany.java FILE...
// Each file's report is written between "=== check FILE" and "=== exit CODE" (its errors too:
// standard error is written to standard output, so the two stay in order).
import com.adobe.epubcheck.tool.EpubChecker;

public class EpubCheckMany {
    public static void main(String[] files) {
        System.setErr(System.out);
        for (String file : files) {
            System.out.println("=== check " + file);
            int code = new EpubChecker().run(new String[] {file});
            System.out.println("=== exit " + code);
        }
    }
}
