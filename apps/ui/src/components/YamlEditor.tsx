import { yaml } from '@codemirror/lang-yaml';
import { type Diagnostic, linter, lintGutter } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { ProblemEntry } from '../api/client';

export interface YamlEditorProps {
  readonly initialValue: string;
  readonly onChange: (source: string) => void;
  /** Problems of a source, each at its line and column when the API knows them. */
  readonly validate: (source: string) => Promise<ProblemEntry[]>;
  readonly label: string;
}

/** Where a problem is marked: from its column to the end of its line; at the top when the API gave no line. */
export function diagnosticFor(doc: Text, entry: ProblemEntry): Diagnostic {
  const line = doc.line(Math.min(Math.max(entry.line ?? 1, 1), doc.lines));
  const from = Math.min(line.from + Math.max((entry.column ?? 1) - 1, 0), line.to);
  const severity = entry.severity === 'WARNING' ? 'warning' : 'error';
  return { from, to: Math.max(line.to, from), severity, message: `${entry.path}: ${entry.message}` };
}

/** The flow editor (CodeMirror 6, loaded lazily): YAML highlighting and the API's validation as inline markers. */
export default function YamlEditor({ initialValue, onChange, validate, label }: YamlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onChange, validate });
  callbacks.current = { onChange, validate };

  useEffect(() => {
    if (!host.current) return;
    const view = new EditorView({
      parent: host.current,
      doc: initialValue,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        linter(
          async (editor) => {
            const doc = editor.state.doc;
            try {
              return (await callbacks.current.validate(doc.toString())).map((entry) => diagnosticFor(doc, entry));
            } catch {
              return [];
            }
          },
          { delay: 400 },
        ),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) callbacks.current.onChange(update.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': label }),
      ],
    });
    return () => view.destroy();
    // The editor owns its text once created; another flow mounts another editor (keyed by the page).
  }, []);

  return <div className="editor" ref={host} />;
}
