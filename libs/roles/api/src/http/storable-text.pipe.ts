import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { InvalidRequest } from './api-errors';
import { unstorableTextProblems } from './storable-text';

const WHAT: Record<string, string> = { param: 'path', query: 'query', body: 'body' };

/**
 * Refuses, for every route, a path parameter, query value or JSON body holding
 * text that cannot be stored (see storable-text.ts) with a 400 naming the
 * parameter or JSON path. Registered once for the whole application, so a new
 * controller is covered without doing anything. Bodies a route reads itself
 * (YAML flows, multipart forms) are checked by their readers.
 */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const what = WHAT[metadata.type];
    if (what === undefined) return value;
    // A single named parameter is reported by its name; a whole query object or body by its keys.
    const problems = unstorableTextProblems(value, metadata.data ?? '');
    if (problems.length > 0) throw new InvalidRequest(`The ${what} holds text that cannot be accepted`, problems);
    return value;
  }
}
